import { SaxesParser, type SaxesTagNS } from 'saxes';
import { isSkip, ruleSetCollection } from './identifiers.ts';
import { attr, UnitReader } from './sections.ts';
import { isZip, uslmText } from './text.ts';

export const USLM_NS = 'http://xml.house.gov/schemas/uslm/1.0';
const DCTERMS_NS = 'http://purl.org/dc/terms/';

/** What a title file is, read before any section is given to the ingest. */
export interface TitleSurvey {
  /** As keys write it: `1`, `5a`, `18a`. */
  title: string;
  /** `<docPublicationName>`: `Online@113-31`. */
  publicationName: string;
  /** The date of `<dcterms:created>`. */
  created: string;
  /**
   * An appendix title is read to its end: it may set out court rules, each set an edition of a rules collection.
   * Per target (`usc`, `frcrp` …): the units it holds and, for a rule set, the date it says the rules are
   * "as amended to". Absent for other titles (all of whose units are `usc`).
   */
  targets?: Map<string, { units: number; amendedTo?: string }>;
}

type Parser = SaxesParser<{ xmlns: true; fileName: string }>;

/**
 * Reads `<meta>`, then stops, except in an appendix title (`5a`, `11a`, `18a` …), which is parsed to its end. A zip's
 * title entry is read to its end in any case, so a corrupt or cut-short zip is refused here, before anything is written.
 */
export async function surveyTitle(file: string): Promise<TitleSurvey> {
  const parser: Parser = new SaxesParser({ xmlns: true, fileName: file });
  const meta = new MetaReader(file);
  const state: { appendix: AppendixReader | null } = { appendix: null };
  parser.on('opentag', (tag) => (state.appendix ? state.appendix.open(tag) : meta.open(tag)));
  parser.on('closetag', (tag) => {
    if (state.appendix) state.appendix.close(tag);
    else if (meta.close(tag) && /[a-z]$/.test(meta.title())) state.appendix = new AppendixReader(meta.title());
  });
  parser.on('text', (text) => (state.appendix ? state.appendix.text(text) : meta.text(text)));
  parser.on('cdata', (text) => state.appendix?.text(text));

  let parsing = true;
  for await (const chunk of uslmText(file)) {
    // After <meta>, the rest of a zip's entry is still read, for its size and CRC-32, but not parsed.
    if (!parsing) continue;
    parser.write(chunk);
    if (meta.done && !state.appendix) {
      parsing = false;
      if (!isZip(file)) break;
    }
  }
  if (parsing) parser.close();
  if (!meta.rootChecked) throw new Error(`${file}: not a USLM title (no root element)`);
  if (!meta.done) throw new Error(`${file}: no <meta> in the USLM title`);
  return { ...meta.result(), ...(state.appendix && { targets: state.appendix.targets }) };
}

class MetaReader {
  rootChecked = false;
  done = false;
  private readonly found: Partial<Record<'docNumber' | 'docPublicationName' | 'created', string>> = {};
  private field: 'docNumber' | 'docPublicationName' | 'created' | null = null;
  private rootIdentifier: string | undefined;

  constructor(private readonly file: string) {}

  open(tag: SaxesTagNS): void {
    if (!this.rootChecked) {
      this.rootChecked = true;
      if (tag.local !== 'uscDoc' || tag.uri !== USLM_NS) {
        throw new Error(
          `${this.file}: not a USLM title (root element <${tag.name}> in namespace '${tag.uri}', expected <uscDoc> in ${USLM_NS})`,
        );
      }
      this.rootIdentifier = attr(tag, 'identifier');
      return;
    }
    if (tag.local === 'docNumber' || tag.local === 'docPublicationName' || (tag.local === 'created' && tag.uri === DCTERMS_NS)) {
      this.field = tag.local;
      this.found[this.field] = '';
    }
  }

  text(text: string): void {
    if (this.field) this.found[this.field] += text;
  }

  /** True when `<meta>` closes. */
  close(tag: SaxesTagNS): boolean {
    this.field = null;
    if (tag.local !== 'meta') return false;
    this.done = true;
    return true;
  }

  title(): string {
    return (this.found.docNumber?.trim() || /^\/us\/usc\/t([0-9a-z]+)$/i.exec(this.rootIdentifier ?? '')?.[1] || '').toLowerCase();
  }

  result(): Omit<TitleSurvey, 'targets'> {
    const title = this.title();
    const publicationName = this.found.docPublicationName?.trim();
    const created = /^\d{4}-\d{2}-\d{2}/.exec(this.found.created?.trim() ?? '')?.[0];
    if (!title || !publicationName || !created) {
      const missing = [!title && 'docNumber', !publicationName && 'docPublicationName', !created && 'dcterms:created'].filter(Boolean);
      throw new Error(`${this.file}: USLM <meta> lacks ${missing.join(', ')}`);
    }
    return { title, publicationName, created };
  }
}

/**
 * Counts an appendix title's units per target, and finds the date each rule set is "as amended to": the last such
 * date stated before the set's first rule (18a states it in the set's source credit, 11a in a note before the set).
 */
class AppendixReader {
  readonly targets = new Map<string, { units: number; amendedTo?: string }>();
  private readonly units: UnitReader;
  private tail = '';
  private amendedTo: string | undefined;
  /** The rule set being read, until its first rule. */
  private opening: string | null = null;

  constructor(title: string) {
    this.units = new UnitReader(title);
  }

  open(tag: SaxesTagNS): void {
    if (tag.local === 'courtRules') {
      const collection = ruleSetCollection(attr(tag, 'identifier'));
      this.opening = isSkip(collection) ? null : collection;
      if (this.opening) this.target(this.opening).amendedTo ??= this.amendedTo;
    } else if (tag.local === 'courtRule') {
      this.opening = null;
    } else if (tag.local === 'date' && /as amended to\s*$/i.test(this.tail)) {
      this.amendedTo = attr(tag, 'date') ?? this.amendedTo;
      if (this.opening && this.amendedTo) this.target(this.opening).amendedTo = this.amendedTo;
    }
    this.units.open(tag);
  }

  close(tag: SaxesTagNS): void {
    this.units.close(tag);
    for (const unit of this.units.take()) this.target(unit.target).units++;
  }

  text(text: string): void {
    this.tail = (this.tail + text).slice(-80);
    this.units.text(text);
  }

  private target(name: string): { units: number; amendedTo?: string } {
    let t = this.targets.get(name);
    if (!t) {
      t = { units: 0 };
      this.targets.set(name, t);
    }
    return t;
  }
}
