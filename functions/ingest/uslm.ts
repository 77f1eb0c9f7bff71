import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { SaxesParser } from 'saxes';
import type { SkippedSection } from '#law/ports.ts';
import type { SourceDocument, SourceEdition } from './source.ts';
import { codeDigest, ENGINE_MODULES } from './source-fingerprint.ts';
import { olrcZipUrl, originOf } from './uslm/release-point.ts';
import { UnitReader } from './uslm/sections.ts';
import { surveyTitle, type TitleSurvey } from './uslm/survey.ts';
import { uslmText } from './uslm/text.ts';

/**
 * US Code titles in OLRC's USLM XML (USLM 1.0 as written by USCConverter 1.0 through 1.7.x), from an `.xml` file or
 * from OLRC's release-point zip of it (`xml_usc01@113-31.zip`). Files are streamed: each edition's `documents`
 * re-reads the file on every iteration and holds one section at a time, whatever the title's size.
 */

export interface UslmOverrides {
  /** The date every edition of the file speaks from (default: `<dcterms:created>`; a rule set's "as amended to" date). */
  date?: string;
  /** The versionLabel of every edition of the file (default: its release point, `113-31`). */
  label?: string;
  retrievedAt?: string;
  /** The address the file was read from, e.g. a mirror's (default: OLRC's download address of the title at its release point). */
  sourceUrl?: string;
}

/**
 * The editions one title file holds: the US Code title itself (scope `<title>-`), and, for an appendix that sets out
 * court rules, one edition of each rules collection (11a: `frbp-`, 18a: `frcrp-`). An appendix with no section of
 * its own (11a) gives no `usc` edition. A zip that is corrupt or cut short is refused here.
 */
export async function readUslmTitle(file: string, overrides: UslmOverrides = {}): Promise<SourceEdition[]> {
  const survey = await surveyTitle(file);
  const origin = originOf(file, survey.title, survey.publicationName);
  const releasePoint = origin.releasePoint;
  const sourceUrl = overrides.sourceUrl ?? (releasePoint ? olrcZipUrl({ titleFile: origin.titleFile, releasePoint }) : undefined);
  const common = {
    label: overrides.label ?? releasePoint ?? survey.publicationName,
    temporalBasis: 'compiled-edition' as const,
    // Unless told otherwise, the bytes were retrieved when the file was last written here.
    retrievedAt: overrides.retrievedAt ?? (await stat(file)).mtime.toISOString(),
    source: file,
    ...(sourceUrl && { sourceUrl }),
  };
  const targets = targetsOf(survey);
  const read = new Set(targets.map((t) => t.target));

  return targets.map(({ target, date }) => {
    let skipped: readonly SkippedSection[] = [];
    let textDigest: string | null = null;
    return {
      ...common,
      collection: target,
      date: overrides.date ?? date,
      // The rules collections' keys all start with their id (`frcrp-49.1`).
      scope: { kind: 'prefix', prefix: `${target === 'usc' ? survey.title : target}-` },
      documents: {
        [Symbol.asyncIterator]: () =>
          readDocuments(file, survey.title, target, read, (s, digest) => {
            skipped = s;
            textDigest = digest;
          }),
      },
      skipped: () => skipped,
      // Of the text the last complete reading parsed (hashed as it went by), else of the file's text now.
      fingerprint: async () => {
        const code = await codeDigest([...ENGINE_MODULES, ...READER_MODULES]);
        return code && `uslm:${target}:${textDigest ?? (await textSha256(file))}:${code}`;
      },
    };
  });
}

/** The modules that read a USLM title into documents (beside ENGINE_MODULES): a change to one reads every title again. */
const READER_MODULES: readonly URL[] = [
  new URL('./uslm.ts', import.meta.url),
  ...['identifiers', 'release-point', 'sections', 'survey', 'text'].map((m) => new URL(`./uslm/${m}.ts`, import.meta.url)),
  new URL('./placeholder.ts', import.meta.url),
  new URL('./olrc/titles.ts', import.meta.url),
  new URL('../law/usc-keys.ts', import.meta.url),
];

/** The SHA-256 of the title's text as the reader is given it (a zip's entry, an XML file's decoded text). */
async function textSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of uslmText(file)) hash.update(chunk);
  return hash.digest('hex');
}

/** The editions' collections and dates: `usc` at `<dcterms:created>`; each rule set at its "as amended to" date. */
function targetsOf(survey: TitleSurvey): { target: string; date: string }[] {
  if (!survey.targets) return [{ target: 'usc', date: survey.created }];
  return [...survey.targets]
    .filter(([, t]) => t.units > 0)
    .sort(([a], [b]) => (a === 'usc' ? -1 : b === 'usc' ? 1 : a.localeCompare(b)))
    .map(([target, t]) => ({ target, date: (target !== 'usc' && t.amendedTo) || survey.created }));
}

/**
 * The documents of one target, in file order; what was skipped is handed to `done` once the file is read. The `usc`
 * reading also reports the units of any target the file gives no edition of (`read`): nothing is dropped unsaid.
 */
async function* readDocuments(
  file: string,
  title: string,
  target: string,
  read: ReadonlySet<string>,
  done: (skipped: SkippedSection[], textDigest: string) => void,
): AsyncGenerator<SourceDocument> {
  const hash = createHash('sha256');
  const reader = new UnitReader(title);
  const parser = new SaxesParser({ xmlns: true, fileName: file });
  parser.on('opentag', (tag) => reader.open(tag));
  parser.on('closetag', (tag) => reader.close(tag));
  parser.on('text', (text) => reader.text(text));
  parser.on('cdata', (text) => reader.text(text));
  const skipped: SkippedSection[] = [];
  function* mine() {
    for (const unit of reader.take()) {
      if (unit.target === target) {
        if ('skipped' in unit) skipped.push(unit.skipped);
        else yield unit.doc;
      } else if (target === 'usc' && !read.has(unit.target)) {
        const where = 'skipped' in unit ? unit.skipped.where : unit.doc.key;
        skipped.push({ where, reason: 'no-edition', detail: `a unit of ${unit.target} in a title read without its rule sets` });
      }
    }
  }
  for await (const chunk of uslmText(file)) {
    hash.update(chunk);
    parser.write(chunk);
    yield* mine();
  }
  parser.close();
  yield* mine();
  done(skipped, hash.digest('hex'));
}
