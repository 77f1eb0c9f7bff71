import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import type { SectionStatus } from '#law/model.ts';
import { normalizeText } from '#shared/hash.ts';
import { placeholderStatus, STATUS_ATTRIBUTES } from './placeholder.ts';
import type { SourceDocument, SourceEdition } from './source.ts';

/**
 * US Code titles in OLRC's USLM XML (USLM 1.0 as written by USCConverter 1.0 through 1.7.x). The file is streamed:
 * `documents` re-reads it on every iteration and holds one section at a time, whatever the title's size.
 */

export interface UslmOverrides {
  date?: string;
  label?: string;
  retrievedAt?: string;
}

const USLM_NS = 'http://xml.house.gov/schemas/uslm/1.0';
const DCTERMS_NS = 'http://purl.org/dc/terms/';

export async function readUslmTitle(file: string, overrides: UslmOverrides = {}): Promise<SourceEdition> {
  const meta = await readMeta(file);
  return {
    collection: 'usc',
    date: overrides.date ?? meta.created,
    label: overrides.label ?? meta.publicationName,
    temporalBasis: 'compiled-edition',
    // Unless told otherwise, the bytes were retrieved when the file was last written here.
    retrievedAt: overrides.retrievedAt ?? (await stat(file)).mtime.toISOString(),
    scope: { kind: 'prefix', prefix: `${meta.title}-` },
    source: file,
    documents: { [Symbol.asyncIterator]: () => readSections(file, meta.title) },
  };
}

// ---- meta ---------------------------------------------------------------------------------------------------------

interface TitleMeta {
  title: string;
  publicationName: string;
  created: string;
}

/** Reads `<meta>` only, then stops: the edition's date and label come before any section. */
async function readMeta(file: string): Promise<TitleMeta> {
  const found: Partial<Record<'docNumber' | 'docPublicationName' | 'created', string>> = {};
  let rootChecked = false;
  let field: keyof typeof found | null = null;
  let metaDone = false;
  let rootIdentifier: string | undefined;

  const parser = new SaxesParser({ xmlns: true, fileName: file });
  parser.on('opentag', (tag) => {
    if (!rootChecked) {
      rootChecked = true;
      if (tag.local !== 'uscDoc' || tag.uri !== USLM_NS) {
        throw new Error(
          `${file}: not a USLM title (root element <${tag.name}> in namespace '${tag.uri}', expected <uscDoc> in ${USLM_NS})`,
        );
      }
      rootIdentifier = attr(tag, 'identifier');
      return;
    }
    if (tag.local === 'docNumber' || tag.local === 'docPublicationName' || (tag.local === 'created' && tag.uri === DCTERMS_NS)) {
      field = tag.local;
      found[field] = '';
    }
  });
  parser.on('text', (text) => {
    if (field) found[field] += text;
  });
  parser.on('closetag', (tag) => {
    field = null;
    if (tag.local === 'meta') metaDone = true;
  });

  await feed(file, parser, () => metaDone);
  if (!rootChecked) throw new Error(`${file}: not a USLM title (no root element)`);

  const title = found.docNumber?.trim() || /^\/us\/usc\/t([0-9a-z]+)$/.exec(rootIdentifier ?? '')?.[1];
  const publicationName = found.docPublicationName?.trim();
  const created = /^\d{4}-\d{2}-\d{2}/.exec(found.created?.trim() ?? '')?.[0];
  if (!title || !publicationName || !created) {
    throw new Error(
      `${file}: USLM <meta> lacks ${[!title && 'docNumber', !publicationName && 'docPublicationName', !created && 'dcterms:created'].filter(Boolean).join(', ')}`,
    );
  }
  return { title, publicationName, created };
}

/** Feeds the file to the parser chunk by chunk; stops early when `done()` says so. */
async function feed(file: string, parser: SaxesParser<{ xmlns: true; fileName: string }>, done: () => boolean): Promise<void> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  try {
    for await (const chunk of stream) {
      parser.write(chunk as string);
      if (done()) return;
    }
    parser.close();
  } finally {
    stream.destroy();
  }
}

// ---- sections -----------------------------------------------------------------------------------------------------

const HIERARCHY: ReadonlySet<string> = new Set([
  'uscDoc',
  'main',
  'title',
  'subtitle',
  'chapter',
  'subchapter',
  'part',
  'subpart',
  'division',
  'subdivision',
  'article',
  'subarticle',
]);
/** Editorial apparatus, not the section's enacted text. */
const APPARATUS: ReadonlySet<string> = new Set(['notes', 'note', 'toc', 'sourceCredit']);
const LEVELS: ReadonlySet<string> = new Set([
  'subsection',
  'paragraph',
  'subparagraph',
  'clause',
  'subclause',
  'item',
  'subitem',
  'subsubitem',
  'level',
]);
const BLOCKS: ReadonlySet<string> = new Set([
  ...LEVELS,
  'chapeau',
  'content',
  'continuation',
  'proviso',
  'p',
  'table',
  'tr',
  'br',
  'layout',
  'header',
  'row',
]);
const CELLS: ReadonlySet<string> = new Set(['td', 'th', 'column']);

async function* readSections(file: string, title: string): AsyncGenerator<SourceDocument> {
  const reader = new SectionReader(file, title);
  const parser = new SaxesParser({ xmlns: true, fileName: file });
  parser.on('opentag', (tag) => reader.open(tag));
  parser.on('closetag', (tag) => reader.close(tag));
  parser.on('text', (text) => reader.text(text));
  parser.on('cdata', (text) => reader.text(text));

  const stream = createReadStream(file, { encoding: 'utf8' });
  try {
    for await (const chunk of stream) {
      parser.write(chunk as string);
      yield* reader.take();
    }
    parser.close();
    yield* reader.take();
  } finally {
    stream.destroy();
  }
}

/** An element around the current section: a level of the title's hierarchy, or anything else (notes, toc …). */
interface OuterFrame {
  local: string;
  /** The value of the level's `<num>`. */
  num?: string;
}

/** Where an element's text goes while a section is read. */
type Sink = 'body' | 'catchline' | 'credit' | 'skip';

interface Frame {
  local: string;
  sink: Sink;
}

/** Turns parser events into one SourceDocument per `<section identifier="/us/usc/t<title>/s…">` of the title's hierarchy. */
class SectionReader {
  private readonly outer: OuterFrame[] = [];
  private section: SectionBuilder | null = null;
  private ready: SourceDocument[] = [];

  constructor(
    private readonly file: string,
    private readonly title: string,
  ) {}

  take(): SourceDocument[] {
    const out = this.ready;
    this.ready = [];
    return out;
  }

  open(tag: SaxesTagNS): void {
    if (this.section) {
      this.section.open(tag);
      return;
    }
    const parent = this.outer[this.outer.length - 1];
    if (tag.local === 'num' && parent) parent.num = attr(tag, 'value');
    const identifier = attr(tag, 'identifier');
    if (tag.local === 'section' && identifier && this.outer.every((f) => HIERARCHY.has(f.local))) {
      this.section = new SectionBuilder(this.keyOf(identifier), attr(tag, 'status'), this.chapter());
      return;
    }
    this.outer.push({ local: tag.local });
  }

  close(tag: SaxesTagNS): void {
    if (this.section) {
      if (!this.section.close(tag)) return;
      this.ready.push(this.section.build());
      this.section = null;
      return;
    }
    this.outer.pop();
  }

  text(text: string): void {
    this.section?.text(text);
  }

  private chapter(): string | undefined {
    for (let i = this.outer.length - 1; i >= 0; i--) if (this.outer[i]!.local === 'chapter') return this.outer[i]!.num;
    return undefined;
  }

  private keyOf(identifier: string): string {
    const m = /^\/us\/usc\/t([0-9a-z]+)\/s([^/]+)$/.exec(identifier);
    if (!m || m[1] !== this.title) {
      throw new Error(`${this.file}: section identifier '${identifier}' is not a section of title ${this.title}`);
    }
    return `${this.title}-${m[2]}`;
  }
}

class SectionBuilder {
  private readonly frames: Frame[] = [];
  private readonly body = new BodyLines();
  private catchline = '';
  private credit = '';

  constructor(
    private readonly key: string,
    private readonly statusAttribute: string | undefined,
    private readonly chapter: string | undefined,
  ) {}

  open(tag: SaxesTagNS): void {
    const sink = this.sinkFor(tag);
    this.frames.push({ local: tag.local, sink });
    if (sink !== 'body') return;
    if (BLOCKS.has(tag.local)) this.body.block();
    else if (CELLS.has(tag.local)) this.body.text(' ');
    else if (tag.local === 'num' || tag.local === 'heading') this.body.beginLead(tag.local);
  }

  /** True when the section itself closes. */
  close(tag: SaxesTagNS): boolean {
    const frame = this.frames.pop();
    if (!frame) return true;
    if (frame.sink === 'body') {
      if (BLOCKS.has(tag.local)) this.body.endBlock();
      else if (tag.local === 'num' || tag.local === 'heading') this.body.endLead();
    }
    return false;
  }

  text(text: string): void {
    const sink = this.frames[this.frames.length - 1]?.sink ?? 'body';
    if (sink === 'body') this.body.text(text);
    else if (sink === 'catchline') this.catchline += text;
    else if (sink === 'credit') this.credit += text;
  }

  build(): SourceDocument {
    const catchline = squash(this.catchline);
    const bodyText = normalizeText(this.body.toText());
    const status =
      this.statusAttribute && STATUS_ATTRIBUTES.has(this.statusAttribute)
        ? (this.statusAttribute as SectionStatus)
        : placeholderStatus(catchline, bodyText);
    return {
      key: this.key,
      catchline,
      bodyText,
      historyNote: squash(this.credit),
      status,
      parts: this.chapter ? { chapter: this.chapter } : {},
    };
  }

  private sinkFor(tag: SaxesTagNS): Sink {
    const parent = this.frames[this.frames.length - 1];
    if (parent && parent.sink !== 'body') return parent.sink;
    const direct = this.frames.length === 0;
    if (direct && tag.local === 'num') return 'skip';
    if (direct && tag.local === 'heading') return 'catchline';
    if (tag.local === 'sourceCredit') return 'credit';
    if (APPARATUS.has(tag.local)) return 'skip';
    // An OLRC footnote marker ("force,1") points into a `<note type="footnote">`: both are editorial.
    if (tag.local === 'ref' && attr(tag, 'class')?.split(/\s+/).includes('footnoteRef')) return 'skip';
    return 'body';
  }
}

/**
 * Lines of a section's text. Structure, not the file's whitespace, decides line breaks (the two converters lay out
 * whitespace differently): every block starts a line, except that a level's text continues the line its `<num>`
 * and heading began, as printed: "(a) Waiver.—The provisions …", "(e)(1) Subject to …".
 */
class BodyLines {
  private readonly lines: string[] = [];
  private line = '';
  /** The current line holds nothing but a level's lead (its num and heading) so far. */
  private leadOnly = true;
  private inLead: 'num' | 'heading' | null = null;
  private last: 'num' | 'heading' | 'text' | null = null;

  block(): void {
    if (!this.leadOnly) this.breakLine();
  }

  endBlock(): void {
    this.breakLine();
  }

  beginLead(kind: 'num' | 'heading'): void {
    this.inLead = kind;
  }

  endLead(): void {
    this.inLead = null;
  }

  text(raw: string): void {
    const text = raw.replace(/\s+/g, ' ');
    if (!text.trim()) {
      if (this.line && !this.leadOnly) this.line += ' ';
      return;
    }
    const afterNum = this.last === 'num' && this.leadOnly;
    if (this.inLead === 'num') {
      // Labels of nested levels join without a space: "(e)(1)".
      this.line = this.leadOnly ? this.line.trimEnd() + text.trim() : this.line + text;
    } else if (afterNum) {
      this.line = `${this.line.trimEnd()} ${text.trimStart()}`;
    } else {
      this.line += this.line ? text : text.trimStart();
    }
    this.last = this.inLead ?? 'text';
    if (!this.inLead) this.leadOnly = false;
  }

  toText(): string {
    this.breakLine();
    return this.lines.join('\n');
  }

  private breakLine(): void {
    const line = this.line.replace(/ {2,}/g, ' ').trim();
    if (line) this.lines.push(line);
    this.line = '';
    this.leadOnly = true;
    this.last = null;
  }
}

function attr(tag: SaxesTagNS, name: string): string | undefined {
  return tag.attributes[name]?.value;
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
