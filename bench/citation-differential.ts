/**
 * Are the case extractor's and the statute finder's answers the same as another commit's? Both are run, this tree's
 * and the commit's (its functions/caselaw/citations/ written out under .bench-tmp/), over every opinion of
 * `--caselaw-data` (CourtListener API v3 records and their .txt), the bundled slip opinions, the real statute and
 * case-form sentences of test/support, and the bench's two dense texts; with `--cuts`, also over each opinion's
 * prefixes and suffixes cut where a statute citation or one of its first case citations starts or ends. Every field
 * of every citation is compared (editions by key, years and size). Exits 1 on a difference.
 *
 *   node --import tsx bench/citation-differential.ts --caselaw-data …/courtlistener-api-v3 [--against main] [--cuts]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createExtractor, type FoundCitation } from '#caselaw/citations/extract.ts';
import { type FoundStatute, findStatuteCitations } from '#caselaw/citations/statutes.ts';
import { answerKeysIn, bundledAnswerKeys } from '../test/support/courtlistener-html.ts';
import { REAL_FORM_CASES } from '../test/support/real-citation-forms.ts';
import { REAL_STATUTE_SENTENCES } from '../test/support/real-statute-citations.ts';
import { REPO } from './proc.ts';

const CITATIONS = 'functions/caselaw/citations';

interface Engines {
  extract(text: string): FoundCitation[];
  statutes(text: string): FoundStatute[];
}

/** The commit's extractor and finder, written out inside the repository (so `#law/…` imports resolve as they do here). */
async function enginesOf(ref: string): Promise<Engines> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8', maxBuffer: 1 << 26 });
  const sha = git('rev-parse', ref).trim();
  const dir = join(REPO, '.bench-tmp', `differential-${sha.slice(0, 12)}`);
  mkdirSync(dir, { recursive: true });
  for (const path of git('ls-tree', '--name-only', sha, `${CITATIONS}/`).split('\n').filter(Boolean)) {
    writeFileSync(join(dir, path.slice(CITATIONS.length + 1)), git('show', `${sha}:${path}`));
  }
  // Its reporters.ts finds reporters-db relative to its own place in the tree, which the copy is not in.
  process.env.REPORTERS_DB_DIR ??= join(REPO, 'layers', 'reporters-db');
  const extract = (await import(join(dir, 'extract.ts'))) as typeof import('#caselaw/citations/extract.ts');
  const statutes = (await import(join(dir, 'statutes.ts'))) as typeof import('#caselaw/citations/statutes.ts');
  const extractor = extract.createExtractor();
  return { extract: (t) => extractor.extract(t), statutes: statutes.findStatuteCitations };
}

function denseTexts(): string[] {
  const sentences = bundledAnswerKeys()
    .flatMap((k) => k.text.split(/(?<=\.)\s+(?=[A-Z])/))
    .filter((s) => /\d+ [A-Z][A-Za-z.’' ]{1,20}\d+/.test(s) && s.length < 600)
    .map((s) => s.replace(/\s+/g, ' '));
  const fill = (parts: readonly string[]) => {
    let text = '';
    for (let i = 0; text.length < 64_000; i++) text += `${parts[i % parts.length]} `;
    return text.slice(0, 64_000);
  };
  return [fill(sentences), fill(REAL_STATUTE_SENTENCES.map((s) => s.text))];
}

const serialized = (found: unknown): string =>
  JSON.stringify(found, (key, value) =>
    key === 'editions' && value
      ? (value as Array<{ key: string; startYear: number | null }>).map((e) => `${e.key}|${e.startYear}|${JSON.stringify(e).length}`)
      : value,
  );

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'caselaw-data': { type: 'string' },
      against: { type: 'string', default: 'main' },
      cuts: { type: 'boolean', default: false },
    },
  });
  const dir = values['caselaw-data'];
  if (!dir) throw new Error('--caselaw-data DIR: the CourtListener API v3 records to read');
  const theirs = await enginesOf(values.against);
  const extractor = createExtractor();
  const ours: Engines = { extract: (t) => extractor.extract(t), statutes: findStatuteCitations };
  const opinions = answerKeysIn(dir).map((k) => k.text);
  const slips = join(REPO, 'data', 'sample', 'caselaw', 'opinion-texts');
  const texts = [
    ...opinions,
    ...readdirSync(dir)
      .filter((f) => f.endsWith('.txt'))
      .map((f) => readFileSync(join(dir, f), 'utf8')),
    ...readdirSync(slips).map((f) => readFileSync(join(slips, f), 'utf8')),
    ...REAL_STATUTE_SENTENCES.map((s) => s.text),
    ...REAL_FORM_CASES.map((c) => c.text),
    ...denseTexts(),
  ];
  let checked = 0;
  let cases = 0;
  let statutes = 0;
  const differences: string[] = [];
  const check = (text: string, label: string) => {
    const found = ours.extract(text);
    const laws = ours.statutes(text);
    if (serialized(found) !== serialized(theirs.extract(text))) differences.push(`case citations of ${label}`);
    if (serialized(laws) !== serialized(theirs.statutes(text))) differences.push(`statute citations of ${label}`);
    checked++;
    cases += found.length;
    statutes += laws.length;
  };
  for (const [i, text] of texts.entries()) check(text, `text ${i}`);
  if (values.cuts) {
    for (const [i, text] of opinions.entries()) {
      const cuts = new Set<number>();
      for (const s of theirs.statutes(text)) for (const at of [s.start, s.end, s.start + 1, s.end - 1]) cuts.add(at);
      for (const c of theirs.extract(text).slice(0, 6)) for (const at of [c.start, c.end]) cuts.add(at);
      for (const at of cuts) {
        check(text.slice(0, at), `opinion ${i} cut before ${at}`);
        check(text.slice(at), `opinion ${i} cut from ${at}`);
      }
    }
  }
  console.log(
    `${checked} texts (${opinions.length} opinions): ${cases} case and ${statutes} statute citations; ${differences.length} differences from ${values.against}`,
  );
  for (const d of differences.slice(0, 20)) console.log(`  ${d}`);
  if (differences.length > 0) process.exitCode = 1;
}

await main();
