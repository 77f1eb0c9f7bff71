import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SaxesParser } from 'saxes';
import type { SectionStatus } from '#law/model.ts';
import { normalizeText } from '#shared/hash.ts';
import { placeholderStatus } from './placeholder.ts';
import type { SourceDocument, SourceEdition } from './source.ts';

/**
 * D.C. Code sections in the Council's dc-library XML, one file per section version, listed by a manifest of the
 * DCCouncil/law-xml-codified history (columns section,path,commit,commit_date,publication_label,change,blob,file).
 * Each publication label is one compiled edition speaking for exactly the sections its rows name.
 */

export interface DcManifestOverrides {
  retrievedAt?: string;
}

const DC_NS = 'https://code.dccouncil.us/schemas/dc-library';
const COLUMNS = ['section', 'path', 'commit', 'commit_date', 'publication_label', 'change', 'blob', 'file'] as const;

interface ManifestRow {
  section: string;
  label: string;
  change: 'A' | 'M' | 'D';
  /** Absolute path of the section's XML; null for a deletion. */
  file: string | null;
}

export async function readDcManifest(manifestCsv: string, overrides: DcManifestOverrides = {}): Promise<SourceEdition[]> {
  const rows = parseManifest(manifestCsv, await readFile(manifestCsv, 'utf8'));
  // Unless told otherwise, the bytes were retrieved when the manifest was last written here.
  const retrievedAt = overrides.retrievedAt ?? (await stat(manifestCsv)).mtime.toISOString();

  const byLabel = new Map<string, ManifestRow[]>();
  for (const row of rows) {
    const group = byLabel.get(row.label) ?? [];
    const twin = group.find((r) => r.section === row.section);
    if (twin) throw new Error(`${manifestCsv}: section ${row.section} appears twice under publication label ${row.label}`);
    group.push(row);
    byLabel.set(row.label, group);
  }

  return [...byLabel.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([label, group]): SourceEdition => ({
        collection: 'dc-code',
        date: label,
        label,
        temporalBasis: 'compiled-edition',
        retrievedAt,
        scope: { kind: 'keys', keys: group.map((r) => r.section) },
        source: `${manifestCsv} @ ${label}: ${group.map((r) => r.file ?? `${r.section} deleted`).join(', ')}`,
        documents: { [Symbol.asyncIterator]: () => readSections(group) },
      }),
    );
}

async function* readSections(rows: readonly ManifestRow[]): AsyncGenerator<SourceDocument> {
  for (const row of rows) {
    if (row.file) yield await readDcSection(row.file, row.section);
  }
}

function parseManifest(manifestCsv: string, csv: string): ManifestRow[] {
  const [header, ...lines] = csv.split(/\r?\n/).filter((l) => l.trim() !== '');
  const names = splitCsvLine(header ?? '');
  const missing = COLUMNS.filter((c) => !names.includes(c));
  if (missing.length) throw new Error(`${manifestCsv}: manifest lacks column(s) ${missing.join(', ')}`);
  const folder = dirname(manifestCsv);

  return lines.map((line, i) => {
    const cells = splitCsvLine(line);
    const get = (name: (typeof COLUMNS)[number]) => cells[names.indexOf(name)]?.trim() ?? '';
    const where = `${manifestCsv} line ${i + 2}`;
    const change = get('change');
    if (change !== 'A' && change !== 'M' && change !== 'D') throw new Error(`${where}: change '${change}' is not A, M or D`);
    const label = get('publication_label');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(label)) throw new Error(`${where}: publication label '${label}' is not a YYYY-MM-DD date`);
    const file = get('file');
    if (change !== 'D' && !file) throw new Error(`${where}: change ${change} without a file`);
    return { section: get('section'), label, change, file: change === 'D' ? null : resolve(folder, file) };
  });
}

/** One CSV record; the manifest's fields never hold newlines, but may be quoted. */
function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  cells.push(cell);
  return cells;
}

// ---- one section --------------------------------------------------------------------------------------------------

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: (XmlElement | string)[];
}

const NOT_BODY: ReadonlySet<string> = new Set(['num', 'heading', 'annotations', 'reason']);
/**
 * A section's `<reason>` is the Council's mark of why it is not (or not yet, or no longer) plain law in force, shown
 * beside the heading: a status where it names one, else the service's note ("Not Funded", "Applicable October 1, 2025").
 */
const REASON_STATUS: Readonly<Record<string, SectionStatus>> = {
  repealed: 'repealed',
  expired: 'expired',
  omitted: 'omitted',
  transferred: 'transferred',
  recodified: 'transferred',
  renumbered: 'transferred',
  reserved: 'reserved',
  abolished: 'repealed',
};
/** The same marks printed as the whole text by older files without a `<reason>`: "[Not funded]." */
const PRINTED_REASON = /^\[?(Not funded|Not applicable|Applicable [A-Z][a-z]+\.? \d{1,2}, \d{4})\]?\.?$/i;
/** A placeholder left where a section moved: "Recodified as § 32-531.05", "Recodified at § 2-381.43." */
const RECODIFIED = /^Recodified (?:as|at|in) §+ ?[\w.:-]+\.?$/;
const EXPIRY_NOTE = /\b(emergency|temporary) legislation that will expire on ([A-Z][a-z]+\.? \d{1,2}, \d{4})/;
// The Council wraps its editorial notes in Markdown emphasis (*NOTE: …*), which its site renders as italics.
const EMPHASIZED_NOTE = /^\*(NOTE:[^*]*)\*$/;

export async function readDcSection(file: string, expectedKey: string): Promise<SourceDocument> {
  const doc = parseDcSection(await readFile(file, 'utf8'), file);
  if (doc.key !== expectedKey) {
    throw new Error(`${file}: section number in the XML is '${doc.key}' but the manifest row says '${expectedKey}'`);
  }
  return doc;
}

/** One section's dc-library XML (`where` names it in errors); its key is the number the XML prints. */
export function parseDcSection(xml: string, where: string): SourceDocument {
  const root = parseXml(where, xml);
  if (root.name !== 'section') throw new Error(`${where}: not a dc-library section (root element <${root.name}>)`);
  const key = inline(child(root, 'num'));
  const catchline = inline(child(root, 'heading'));

  const lines: string[] = [];
  const expiries: RegExpExecArray[] = [];
  for (const node of root.children) {
    if (typeof node === 'string' || NOT_BODY.has(node.name)) continue;
    if (node.name === 'text') {
      const text = inline(node).replace(EMPHASIZED_NOTE, '$1');
      const expiry = EXPIRY_NOTE.exec(text);
      if (expiry) expiries.push(expiry);
      lines.push(text);
    } else if (node.name === 'para') renderPara(node, lines, '');
    else renderBlock(node, lines);
  }
  const bodyText = normalizeText(lines.filter(Boolean).join('\n'));
  const reason = inline(child(root, 'reason')) || (PRINTED_REASON.exec(bodyText)?.[1] ?? '');
  const reasonStatus = REASON_STATUS[reason.toLowerCase()] ?? (RECODIFIED.test(bodyText) ? 'transferred' : undefined);
  const notes = [reason && !reasonStatus ? `The source marks this section '${reason}'.` : null, expiryNote(expiries)].filter(Boolean);

  return {
    key,
    catchline,
    bodyText,
    historyNote: historyOf(root),
    status: reasonStatus ?? placeholderStatus(catchline, bodyText),
    parts: {},
    note: notes.length ? notes.join(' ') : null,
  };
}

/** The service's note for text the source marks as emergency or temporary law, with the expiry dates it states. */
function expiryNote(expiries: readonly RegExpExecArray[]): string | null {
  if (expiries.length === 0) return null;
  const kinds = [...new Set(expiries.map((e) => e[1]!))].join('/');
  const dates = [...new Set(expiries.map((e) => e[2]!))];
  const notes = dates.length > 1 ? 'expiry notes' : 'expiry note';
  return `The source marks this text as ${kinds} legislation that will expire on ${dates.join(' and ')}; see its ${notes}.`;
}

/**
 * A para's num leads its first line: "(a) A person commits …". A para whose num is followed directly by a sub-para
 * lends it the label ("(d)(1) A conviction …"), as the Council's site prints it.
 */
function renderPara(para: XmlElement, lines: string[], lead: string): void {
  const num = child(para, 'num');
  const label = num && num.attributes.undesignated !== 'true' ? inline(num) : '';
  let pending: string | null = lead + label;
  const flush = () => {
    if (pending) lines.push(pending);
    pending = null;
  };
  for (const node of para.children) {
    if (typeof node === 'string' || node.name === 'num') continue;
    if (node.name === 'heading' || (node.name === 'text' && pending !== null)) {
      pending = join(pending ?? '', inline(node));
      if (node.name === 'text') flush();
    } else if (node.name === 'text') lines.push(inline(node));
    else if (node.name === 'para') {
      // Only a bare label run is lent to the sub-para; after a heading it starts its own line.
      const labelsOnly = pending !== null && /^(\([^)\s]+\))*$/.test(pending);
      if (labelsOnly) renderPara(node, lines, pending ?? '');
      else {
        flush();
        renderPara(node, lines, '');
      }
      pending = null;
    } else {
      flush();
      renderBlock(node, lines);
    }
  }
  flush();
}

/** Quoted blocks (`<include>`) and the text after them (`<aftertext>`): their paras and texts, each on its own line. */
function renderBlock(block: XmlElement, lines: string[]): void {
  const texts = block.children.filter((n): n is XmlElement => typeof n !== 'string');
  if (texts.length === 0) return void lines.push(inline(block));
  for (const node of texts) {
    if (node.name === 'para') renderPara(node, lines, '');
    else if (node.name === 'include' || node.name === 'aftertext') renderBlock(node, lines);
    else lines.push(inline(node));
  }
}

const join = (a: string, b: string): string => (a && b ? `${a} ${b}` : a || b);

/** An element's words: citations and emphasis keep their text; struck text (`<s>`) is not in force and is left out. */
function inline(node: XmlElement | string | undefined): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\s+/g, ' ');
  if (node.name === 's') return '';
  return node.children.map(inline).join('').replace(/\s+/g, ' ').trim();
}

const child = (node: XmlElement, name: string): XmlElement | undefined =>
  node.children.find((n): n is XmlElement => typeof n !== 'string' && n.name === name);

const MONTHS = ['Jan.', 'Feb.', 'Mar.', 'Apr.', 'May', 'June', 'July', 'Aug.', 'Sept.', 'Oct.', 'Nov.', 'Dec.'];

/** The displayed History annotations, in order, joined with "; ". */
function historyOf(root: XmlElement): string {
  const annotations = child(root, 'annotations')?.children ?? [];
  return annotations
    .filter((n): n is XmlElement => typeof n !== 'string' && n.name === 'annotation')
    .filter((a) => a.attributes.type === 'History' && a.attributes.display !== 'false')
    .map((a) => inline(a) || historyFromAttributes(a))
    .filter(Boolean)
    .join('; ');
}

/**
 * Newer History entries are empty elements whose attributes the Council's site renders ("Mar. 11, 2024, D.C. Act
 * 25-410, § 14(c)"). We render the same fields in the style of the textual entries; the D.C. Register cite the site
 * adds is not in the XML and is not invented here.
 */
function historyFromAttributes(a: XmlElement): string {
  const { doc, path, prefix } = a.attributes;
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(a.attributes.eff ?? a.attributes.app ?? '');
  const when = date ? `${MONTHS[Number(date[2]) - 1]} ${Number(date[3])}, ${date[1]}` : '';
  const where = path ? path.split('|').join('').replace(/^§\s*/, '§ ') : '';
  return [prefix, [when, doc, where].filter(Boolean).join(', ')].filter(Boolean).join(' ');
}

function parseXml(file: string, xml: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const parser = new SaxesParser({ xmlns: true, fileName: file });
  parser.on('opentag', (tag) => {
    if (!root && tag.uri !== DC_NS) {
      throw new Error(`${file}: not dc-library XML (root <${tag.name}> in namespace '${tag.uri}', expected ${DC_NS})`);
    }
    const attributes: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) attributes[a.name] = a.value;
    const element: XmlElement = { name: tag.local, attributes, children: [] };
    stack[stack.length - 1]?.children.push(element);
    root ??= element;
    stack.push(element);
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('text', (text) => void stack[stack.length - 1]?.children.push(text));
  parser.write(xml).close();
  if (!root) throw new Error(`${file}: no root element`);
  return root;
}
