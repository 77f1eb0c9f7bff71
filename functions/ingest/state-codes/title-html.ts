import { Parser } from 'htmlparser2';
import type { Collection } from '#law/collections.ts';
import type { SkippedSection } from '#law/ports.ts';
import { placeholderStatus } from '../placeholder.ts';
import type { SourceDocument } from '../source.ts';
import type { StateCodeFormat } from './formats.ts';

/**
 * One title file of a state code in the publisher's structured HTML (see formats.ts), read as it streams: the
 * release line first, then each section as soon as the next one starts. A section's text is its paragraphs and list
 * items up to the history line; the history line is its history note; the publisher's annotations after it (notes
 * to decisions, cross-references, law reviews …) are not carried. A section that cannot be read is reported as
 * skipped, with why, and the rest of the file is read.
 */

export interface ReleaseLine {
  release: number;
  /** YYYY-MM-DD, as the file states it (Tennessee's release 76 writes 2021.05.21). */
  date: string;
  /** "Official Code of Tennessee Annotated". */
  codeName: string;
}

export type TitleEvent =
  | { kind: 'release'; release: ReleaseLine }
  | { kind: 'title'; heading: string }
  | { kind: 'section'; doc: SourceDocument }
  | { kind: 'skipped'; skipped: SkippedSection };

const RELEASE_LINE = /Release\s+(\d+)\s+of\s+the\s+(.+?)\s+released\s+(\d{4})[.-](\d{2})[.-](\d{2})/;

export function parseReleaseLine(text: string): ReleaseLine | null {
  const m = RELEASE_LINE.exec(squash(text));
  return m ? { release: Number(m[1]), codeName: m[2]!, date: `${m[3]}-${m[4]}-${m[5]}` } : null;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * A section heading: its number or numbers, then its catchline. "1-3-101. Repeals not retroactive.",
 * "31-3-108 — 31-3-119. [Reserved.]", "31-6-117, 31-6-118. [Repealed.]", "§§ 1-1-1 through 1-1-6. Repealed.",
 * "§ 5-3-73." (no catchline), "§§ 5-3-75, 5–3–77. Reserved." (en dashes for hyphens).
 */
const NUMBER = String.raw`\d[\d.\-–]*\d`;
const HEADING = new RegExp(String.raw`^(?:§§?\s*)?(${NUMBER}(?:\s*(?:,|—|–|\bthrough\b|\bto\b)\s*${NUMBER})*)\.?(?:\s+(.*))?$`);
const LIST_ITEM = /\s*,\s*/;

/** Each key a heading names ("31-6-117, 31-6-118" names two; "1-1-1 through 1-1-6" one run), or null. */
export function headingKeys(collection: Collection, numbers: string): string[] | null {
  const keys = numbers.split(LIST_ITEM).map((n) => collection.normalizeKey(n));
  return keys.every((k) => k !== null) ? (keys as string[]) : null;
}

type ListKind = 'bullet' | 'decimal' | 'lower-alpha' | 'upper-alpha' | 'lower-roman' | 'upper-roman';

interface OpenList {
  kind: ListKind;
  next: number;
}

/** What one section collects while its blocks stream past. */
interface SectionDraft {
  elementId: string;
  /** Depth of the heading: the section's blocks are its later siblings, at the same depth. */
  parentDepth: number;
  heading: string;
  lines: string[];
  history: string[];
  /** An annotation (or the next part of the title) has begun: nothing more of the section is text. */
  ended: boolean;
}

/** A section read, before the checks that make it a document. */
interface ReadSection {
  elementId: string;
  heading: string;
  lines: string[];
  history: string[];
  /** The service's note, when the release prints more than one text of the section. */
  note?: string;
}

/** Reads a title file's HTML as it streams (`write` each chunk, then `end`); `take` hands over what was read so far. */
export class TitleHtmlReader {
  private readonly events: TitleEvent[] = [];
  private readonly parser: Parser;
  private depth = 0;
  private capture: { depth: number; text: string; into: 'release' | 'title' | 'heading' | 'paragraph' } | null = null;
  private draft: SectionDraft | null = null;
  /** The list being read (a section's `<ol>`), its open levels, and the item line being collected. */
  private list: { depth: number; levels: OpenList[]; line: string | null } | null = null;
  private releaseSeen = false;
  /** The release's date, once its line is read: which of two texts of one section is in force on it. */
  private releaseDate = '';
  /** The last section read, held until the next one starts (see placeMisplacedText). */
  private held: ReadSection | null = null;
  private readonly keysSeen = new Set<string>();

  constructor(
    private readonly format: StateCodeFormat,
    private readonly collection: Collection,
    /** The title the file is named for (`1`, `87`): a section of another title is skipped. */
    private readonly title: string,
  ) {
    this.parser = new Parser(
      {
        onopentag: (name, attributes) => this.open(name, attributes),
        onclosetag: (name) => this.close(name),
        ontext: (text) => this.text(text),
      },
      { decodeEntities: true, lowerCaseTags: true },
    );
  }

  write(chunk: string): void {
    this.parser.write(chunk);
  }

  end(): void {
    this.parser.end();
    this.finishSection();
    this.flushHeld();
  }

  take(): TitleEvent[] {
    return this.events.splice(0);
  }

  private open(name: string, attributes: Record<string, string>): void {
    const depth = this.depth++;
    if (this.capture) {
      if (name === 'br') this.capture.text += ' ';
      return;
    }
    if (this.list) {
      this.openInList(name, attributes);
      return;
    }
    if (name === 'p' && attributes.class === 'transformation' && !this.releaseSeen) {
      this.capture = { depth, text: '', into: 'release' };
      return;
    }
    if (name === 'h1') {
      this.capture = { depth, text: '', into: 'title' };
      return;
    }
    if (name === 'h3') {
      this.finishSection();
      this.draft = { elementId: attributes.id ?? '', parentDepth: depth, heading: '', lines: [], history: [], ended: false };
      this.capture = { depth, text: '', into: 'heading' };
      return;
    }
    const draft = this.draft;
    if (!draft || draft.ended || depth !== draft.parentDepth) return;
    if (name === 'p') this.capture = { depth, text: '', into: 'paragraph' };
    else if ((name === 'ol' || name === 'ul') && attributes.class !== 'leaders') {
      this.list = { depth, levels: [], line: null };
      this.openInList(name, attributes);
    } else draft.ended = true;
  }

  private openInList(name: string, attributes: Record<string, string>): void {
    const list = this.list!;
    if (name === 'ol' || name === 'ul') {
      this.flushListLine();
      list.levels.push({ kind: listKind(name, attributes), next: Number(attributes.start ?? 1) || 1 });
    } else if (name === 'li') {
      this.flushListLine();
      const level = list.levels.at(-1);
      list.line = level && level.kind !== 'bullet' ? `(${label(level.kind, level.next++)}) ` : '';
    } else if (name === 'br' && list.line !== null) list.line += ' ';
  }

  private close(name: string): void {
    const depth = --this.depth;
    const capture = this.capture;
    if (capture && depth === capture.depth) {
      this.capture = null;
      this.captured(capture.into, squash(capture.text));
      return;
    }
    if (this.list) {
      if (name === 'li' || name === 'ol' || name === 'ul') this.flushListLine();
      if (name === 'ol' || name === 'ul') this.list.levels.pop();
      if (depth === this.list.depth) this.list = null;
      return;
    }
    if (this.draft && depth < this.draft.parentDepth) this.finishSection();
  }

  private text(text: string): void {
    if (this.capture) this.capture.text += text;
    else if (this.list) {
      // Text of an item after its sub-list continues on a line of its own.
      if (this.list.line === null && text.trim() !== '' && this.list.levels.length > 0) this.list.line = '';
      if (this.list.line !== null) this.list.line += text;
    }
  }

  private flushListLine(): void {
    const list = this.list;
    if (!list || list.line === null) return;
    const line = squash(list.line);
    list.line = null;
    // An item that holds only a sub-list still shows its label: "(8)" then "(a) …".
    if (line && this.draft && !this.draft.ended) this.draft.lines.push(line);
  }

  private captured(into: 'release' | 'title' | 'heading' | 'paragraph', text: string): void {
    if (into === 'release') {
      const release = parseReleaseLine(text);
      if (release) {
        this.releaseSeen = true;
        this.releaseDate = release.date;
        this.events.push({ kind: 'release', release });
      }
    } else if (into === 'title') this.events.push({ kind: 'title', heading: text });
    else if (into === 'heading') {
      if (this.draft) this.draft.heading = text;
    } else this.paragraph(text);
  }

  private paragraph(text: string): void {
    const draft = this.draft;
    if (!draft || draft.ended || text === '') return;
    if (this.format.annotation.test(text)) {
      draft.ended = true;
      return;
    }
    const history = this.format.historyLine.exec(text);
    if (history) {
      draft.history.push(squash(history[1] ? text.slice(history[0].length) : text));
      if (this.format.historyEndsText) draft.ended = true;
      return;
    }
    draft.lines.push(text);
  }

  private finishSection(): void {
    const draft = this.draft;
    if (!draft) return;
    this.draft = null;
    this.list = null;
    const section: ReadSection = { elementId: draft.elementId, heading: draft.heading, lines: draft.lines, history: draft.history };
    if (this.held) {
      const pair = textsOfOneRelease(this.held, section, this.releaseDate);
      if (pair) {
        this.held = pair.kept;
        this.skip(pair.skipped);
        return;
      }
      placeMisplacedText(this.held, section);
    }
    this.flushHeld();
    this.held = section;
  }

  private flushHeld(): void {
    const section = this.held;
    this.held = null;
    if (section) this.emit(section);
  }

  private emit(section: ReadSection): void {
    const where = section.elementId || section.heading || '(a heading without id or text)';
    const m = HEADING.exec(section.heading);
    const keys = m ? headingKeys(this.collection, m[1]!) : null;
    if (!m || !keys) {
      this.skip({
        where,
        reason: 'unreadable-heading',
        detail: `no section number the ${this.collection.name} uses in '${section.heading}'`,
      });
      return;
    }
    const effective = effectiveMarker(m[2] ?? '');
    const catchline = effective ? effective.catchline : (m[2] ?? '').trim();
    const bodyText = section.lines.join('\n');
    const status = placeholderStatus(catchline, bodyText);
    if (status === 'active' && bodyText === '') {
      // Mississippi r72–r74 print the repealed runs 5-3-151 … 5-3-167 and 5-7-1 … 5-7-19 as a bare "§ 5-3-151." over
      // their old sources: no text and no catchline say what the section is, so there is nothing to carry.
      for (const key of keys) {
        this.skip({ where, key, reason: 'heading-without-text', detail: `'${section.heading}' heads no text and is no placeholder` });
      }
      return;
    }
    for (const key of keys) {
      if (this.collection.titleOf?.(key) !== this.title) {
        this.skip({ where, key, reason: 'outside-title', detail: `${key} is not of title ${this.title}, which the file is named for` });
      } else if (this.keysSeen.has(key)) {
        this.skip({ where, key, reason: 'duplicate-key', detail: `${key} is headed twice in the file; its first heading is kept` });
      } else {
        this.keysSeen.add(key);
        this.events.push({
          kind: 'section',
          doc: {
            key,
            catchline,
            bodyText,
            historyNote: section.history.join('\n'),
            status,
            parts: {},
            ...(section.note && { note: section.note }),
          },
        });
      }
    }
  }

  private skip(skipped: SkippedSection): void {
    this.events.push({ kind: 'skipped', skipped });
  }
}

/**
 * The converter sometimes leaves a section's heading after its text: a placeholder heading ("31-3-108 — 31-3-119.
 * [Reserved.]", "§§ 5-3-75, 5–3–77. Reserved.") is followed by the text and history of the next section, whose own
 * heading then stands alone before the next chapter (Tennessee r72–r76 31-3-120, whose list items' ids even name it;
 * Mississippi r75–r78 5-3-79). A placeholder prints nothing of its own but its catchline, so such text is the next
 * heading's when that heading has none.
 */
function placeMisplacedText(placeholder: ReadSection, next: ReadSection): void {
  const catchlineOf = (s: ReadSection) => HEADING.exec(s.heading)?.[2] ?? '';
  const hasText = (s: ReadSection) => s.lines.length > 0 || s.history.length > 0;
  if (!hasText(placeholder) || hasText(next)) return;
  if (placeholderStatus(catchlineOf(placeholder), '') === 'active' || placeholderStatus(catchlineOf(next), '') !== 'active') return;
  next.lines = placeholder.lines;
  next.history = placeholder.history;
  placeholder.lines = [];
  placeholder.history = [];
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
// "… [Effective until December 30, 2020. See version effective on January 1, 2021.]", "… [Effective July 1, 2019]."
const EFFECTIVE = /\s*\[Effective\s+(until|on)?\s*([A-Z][a-z]+)\s+(\d{1,2}),\s+(\d{4})\b[^\]]*\]\.?$/;

interface EffectiveMarker {
  catchline: string;
  until: boolean;
  date: string;
  /** As printed: "Effective until December 30, 2020". */
  printed: string;
}

/**
 * A catchline's "[Effective until D]" / "[Effective on D]" marker, which the publisher prints when a release carries
 * two texts of one section; the catchline without it, so the text keeps its identity across releases.
 */
export function effectiveMarker(heading: string): EffectiveMarker | null {
  const m = EFFECTIVE.exec(heading.trim());
  const month = m ? MONTHS.indexOf(m[2]!) : -1;
  if (!m || month < 0) return null;
  const date = `${m[4]}-${String(month + 1).padStart(2, '0')}-${m[3]!.padStart(2, '0')}`;
  return {
    catchline: heading.trim().slice(0, m.index).trim(),
    until: m[1] === 'until',
    date,
    printed: `Effective ${m[1] ? `${m[1]} ` : ''}${m[2]} ${m[3]}, ${m[4]}`,
  };
}

/**
 * Two texts of one section in one release, each marked with when it is effective (Tennessee r73–r75 1-3-113,
 * Mississippi r74 95-15-1): the one in force on the release's date is the release's text of the section; the other is
 * skipped, named. Null when the two are not such a pair.
 */
function textsOfOneRelease(a: ReadSection, b: ReadSection, releaseDate: string): { kept: ReadSection; skipped: SkippedSection } | null {
  const [ha, hb] = [HEADING.exec(a.heading), HEADING.exec(b.heading)];
  if (!ha || !hb || ha[1] !== hb[1] || !releaseDate) return null;
  const [ea, eb] = [effectiveMarker(ha[2] ?? ''), effectiveMarker(hb[2] ?? '')];
  if (!ea || !eb) return null;
  const inForce = (e: EffectiveMarker) => (e.until ? releaseDate <= e.date : releaseDate >= e.date);
  const [kept, keptMarker, other, otherMarker] = inForce(ea) || !inForce(eb) ? [a, ea, b, eb] : [b, eb, a, ea];
  kept.note =
    `This release (${releaseDate}) prints two texts of this section: this one, "${keptMarker.printed}", in force on the release's date, ` +
    `and one "${otherMarker.printed}".`;
  return {
    kept,
    skipped: {
      where: other.elementId || other.heading,
      reason: 'not-in-force-on-release-date',
      detail: `the release prints two texts of ${ha[1]}; this one ("${otherMarker.printed}") was not in force on ${releaseDate}, the other is kept`,
    },
  };
}

function listKind(name: string, attributes: Record<string, string>): ListKind {
  if (name === 'ul') return 'bullet';
  if (attributes.class === 'alpha') return 'lower-alpha';
  switch (attributes.type) {
    case 'a':
      return 'lower-alpha';
    case 'A':
      return 'upper-alpha';
    case 'i':
      return 'lower-roman';
    case 'I':
      return 'upper-roman';
    default:
      return 'decimal';
  }
}

const ROMAN: readonly [number, string][] = [
  [1000, 'm'],
  [900, 'cm'],
  [500, 'd'],
  [400, 'cd'],
  [100, 'c'],
  [90, 'xc'],
  [50, 'l'],
  [40, 'xl'],
  [10, 'x'],
  [9, 'ix'],
  [5, 'v'],
  [4, 'iv'],
  [1, 'i'],
];

function roman(n: number): string {
  let out = '';
  let rest = n;
  for (const [value, letters] of ROMAN) {
    while (rest >= value) {
      out += letters;
      rest -= value;
    }
  }
  return out;
}

/** An item's label as the publisher's list style prints it: a, b … z, aa, bb … (statute style, as the ids write them). */
function label(kind: ListKind, n: number): string {
  switch (kind) {
    case 'bullet':
      return '';
    case 'decimal':
      return String(n);
    case 'lower-alpha':
    case 'upper-alpha': {
      const letter = String.fromCharCode(97 + ((n - 1) % 26)).repeat(Math.floor((n - 1) / 26) + 1);
      return kind === 'lower-alpha' ? letter : letter.toUpperCase();
    }
    case 'lower-roman':
      return roman(n);
    case 'upper-roman':
      return roman(n).toUpperCase();
  }
}
