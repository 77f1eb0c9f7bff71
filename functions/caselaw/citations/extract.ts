/**
 * Our own citation extractor, built on reporters-db. One pass over the text: at each number that can be a volume it
 * walks the abbreviation trie and tries the citation forms the matched edition allows, longest abbreviation first.
 * Nothing backtracks over more than one abbreviation's length, so the cost is linear in the input (the benchmark
 * shows it on pathological inputs).
 *
 * Found: full case citations (`455 U.S. 745`, `2000-Ohio-123`, `67 U.S. (2 Black) 635`) with pin cites, the
 * parenthetical's year and court text, and parallel groups (`455 U.S. 745, 758, 102 S. Ct. 1388 (1982)`); short
 * cites (`455 U.S. at 758`), statutes with a leading title number (`42 U.S.C. § 1983`), journals (`95 Harv. L. Rev.
 * 1`), `id.` and `supra`. Only full case citations are resolved, as CourtListener does.
 *
 * Offsets are UTF-16 code-unit indices, as JavaScript's String indexes them: `text.slice(start, end)` is the
 * citation. (Python's str counts code points, so the two differ only after a character outside the BMP.)
 */
import { AbbreviationTrie, isSpace } from './abbreviation-trie.ts';
import { type Abbreviation, type Edition, type ReportersDb, reportersDb } from './reporters.ts';

export type CitationKind = 'full' | 'short' | 'law' | 'journal' | 'id' | 'supra';

export interface FoundCitation {
  kind: CitationKind;
  /** [start, end) in UTF-16 code units; for full and short cites, from the volume to the page. */
  start: number;
  end: number;
  /** The citation as printed (`text.slice(start, end)`). */
  text: string;
  volume?: string;
  /** The reporter as printed, white space collapsed. */
  reporter?: string;
  page?: string;
  pin?: string;
  /** The year and the rest of the parenthetical that follows the citation (or its parallel group). */
  year?: number;
  parenthetical?: string;
  /** Candidate editions, narrowed by the year when it tells them apart. */
  editions?: readonly Edition[];
  /** A format-neutral cite printed `2000-Ohio-123`; its canonical form keeps the hyphens. */
  hyphenated?: boolean;
  /** Index (in the result) of the first citation of this one's parallel group; absent when it stands alone. */
  parallelTo?: number;
}

export interface Extractor {
  extract(text: string): FoundCitation[];
}

// biome-ignore lint/suspicious/noConstEnum: inlined by esbuild in the extractor's hot loop; the enum never leaves this module
const enum Code {
  Zero = 0x30,
  Nine = 0x39,
  Comma = 0x2c,
  Hyphen = 0x2d,
  OpenParen = 0x28,
  CloseParen = 0x29,
  Section = 0xa7,
}

function isDigit(code: number): boolean {
  return code >= Code.Zero && code <= Code.Nine;
}

function isWordChar(code: number): boolean {
  return (
    isDigit(code) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    (code > 0x7f && !isSpace(code) && code !== Code.Section)
  );
}

function skipSpaces(text: string, i: number, max = 24): number {
  const limit = Math.min(text.length, i + max);
  while (i < limit && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function digitsEnd(text: string, i: number): number {
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  return i;
}

const MAX_VOLUME_DIGITS = 5;
const MAX_PAGE_DIGITS = 7;
const NOMINATIVE = /^\((?:\d{1,2} )?[A-Z][A-Za-z.& ]{0,24}\)/;
const PIN =
  /^,?\s*(?:at\s+)?((?:\d+|[*]\d+)(?:\s*[-–—]\s*\d+)?(?:\s*(?:n|nn)\.\s*\d+(?:\s*[-–—]\s*\d+)?)?(?:\s*,\s*\d+(?:\s*[-–—]\s*\d+)?(?!\s*[A-Z]))*)/;
const PARALLEL_GAP = /^\s*,\s*$/;
const YEAR = /(?:^|[^\d])(1[6-9]\d\d|20\d\d)(?!\d)/g;
const ID = /(?<![\p{L}\p{N}])(?:[Ii]d\.|[Ii]bid\.)/gu;
const SUPRA = /(?<![\p{L}\p{N}])supra(?![\p{L}\p{N}])/gu;
const MAX_PARENTHETICAL = 160;

/** The extractor over the given tables (the shared reporters-db tables by default). */
export function createExtractor(db: ReportersDb = reportersDb()): Extractor {
  const trie = new AbbreviationTrie(db.abbreviations.values());
  const matches: Array<[number, Abbreviation]> = [];

  /** The page that starts at `i`, or -1: 1–7 digits not run into a word. */
  function pageEnd(text: string, i: number): number {
    const end = digitsEnd(text, i);
    if (end === i || end - i > MAX_PAGE_DIGITS) return -1;
    if (end < text.length && isWordChar(text.charCodeAt(end))) return -1;
    return end;
  }

  function tryAt(text: string, volumeStart: number, volumeEnd: number, out: FoundCitation[], probing = false): number {
    const hyphenated = text.charCodeAt(volumeEnd) === Code.Hyphen && volumeEnd - volumeStart === 4;
    const reporterStart = hyphenated ? volumeEnd + 1 : skipSpaces(text, volumeEnd);
    if (!hyphenated && reporterStart === volumeEnd) return -1;
    trie.matchesAt(text, reporterStart, matches);
    for (let m = matches.length - 1; m >= 0; m--) {
      const [reporterEnd, abbreviation] = matches[m]!;
      const found = hyphenated
        ? hyphenatedCite(text, volumeStart, volumeEnd, reporterStart, reporterEnd, abbreviation)
        : citeAfterReporter(text, volumeStart, volumeEnd, reporterStart, reporterEnd, abbreviation);
      if (found) {
        if (isStarPage(text, found)) return found.end;
        // `5 Phila., 142 F.3d 582`: a page that is itself the volume of the next citation was never a page.
        if (!probing && found.kind === 'full' && !hyphenated && startsCitation(text, found.end - (found.page?.length ?? 0))) return -1;
        out.push(found);
        return found.end;
      }
    }
    return -1;
  }

  /**
   * A page marker of the printed reporter (`… Republican [321 U.S.App.D.C. 99] National …`) sits in the text; it is
   * not a citation. A bracketed parallel cite right after a pin (`… 2d 777, 797 [336 P.2d 937]`) is one.
   */
  function isStarPage(text: string, found: FoundCitation): boolean {
    if (text.charCodeAt(found.start - 1) !== 0x5b || text.charCodeAt(found.end) !== 0x5d) return false;
    let k = found.start - 2;
    while (k >= 0 && isSpace(text.charCodeAt(k))) k--;
    return k < 0 || !isDigit(text.charCodeAt(k));
  }

  const probe: FoundCitation[] = [];
  function startsCitation(text: string, at: number): boolean {
    probe.length = 0;
    const saved = matches.slice();
    const ok = tryAt(text, at, digitsEnd(text, at), probe, true) > 0 && probe[0]?.kind === 'full';
    matches.length = 0;
    matches.push(...saved);
    return ok;
  }

  function base(
    text: string,
    kind: CitationKind,
    volumeStart: number,
    volumeEnd: number,
    reporterStart: number,
    reporterEnd: number,
    abbreviation: Abbreviation,
    pageStart: number,
    end: number,
  ): FoundCitation {
    const found: FoundCitation = {
      kind,
      start: volumeStart,
      end,
      text: text.slice(volumeStart, end),
      volume: text.slice(volumeStart, volumeEnd),
      reporter: text.slice(reporterStart, reporterEnd).replace(/\s+/g, ' '),
      page: pageStart >= 0 ? text.slice(pageStart, end) : undefined,
    };
    if (abbreviation.kind === 'case') found.editions = abbreviation.editions;
    return found;
  }

  function hyphenatedCite(
    text: string,
    volumeStart: number,
    volumeEnd: number,
    reporterStart: number,
    reporterEnd: number,
    abbreviation: Abbreviation,
  ): FoundCitation | undefined {
    if (abbreviation.kind !== 'case' || !abbreviation.editions.some((e) => e.hyphenated)) return undefined;
    if (text.charCodeAt(reporterEnd) !== Code.Hyphen) return undefined;
    const end = pageEnd(text, reporterEnd + 1);
    if (end < 0) return undefined;
    const found = base(text, 'full', volumeStart, volumeEnd, reporterStart, reporterEnd, abbreviation, reporterEnd + 1, end);
    found.editions = abbreviation.editions.filter((e) => e.hyphenated);
    found.hyphenated = true;
    return found;
  }

  function citeAfterReporter(
    text: string,
    volumeStart: number,
    volumeEnd: number,
    reporterStart: number,
    reporterEnd: number,
    abbreviation: Abbreviation,
  ): FoundCitation | undefined {
    // The abbreviation must end at a word boundary: `U.S.` in `U.S.C.` is not a reporter.
    const after = text.charCodeAt(reporterEnd);
    if (reporterEnd < text.length && !isSpace(after) && after !== Code.Comma && after !== Code.OpenParen) return undefined;
    let i = reporterEnd;
    if (text.charCodeAt(i) === Code.Comma) i++;
    const spaced = skipSpaces(text, i);
    if (abbreviation.kind === 'law') {
      let j = spaced;
      if (text.charCodeAt(j) === Code.Section) {
        while (text.charCodeAt(j) === Code.Section) j++;
        j = skipSpaces(text, j);
        const m = /^[\dA-Za-z][\w.\-–:]*(?:\([\w]{1,4}\))*/.exec(text.slice(j, j + 48));
        if (!m) return undefined;
        const end = j + m[0].replace(/[.\-:]+$/, '').length;
        return base(text, 'law', volumeStart, volumeEnd, reporterStart, reporterEnd, abbreviation, -1, end);
      }
      const end = pageEnd(text, spaced);
      if (spaced === i || end < 0) return undefined;
      return base(text, 'law', volumeStart, volumeEnd, reporterStart, reporterEnd, abbreviation, spaced, end);
    }
    if (spaced === i && text.charCodeAt(i) !== Code.OpenParen) return undefined;
    if (abbreviation.kind === 'case' && text.startsWith('at', spaced) && isSpace(text.charCodeAt(spaced + 2))) {
      const pageStart = skipSpaces(text, spaced + 2);
      const end = pageEnd(text, pageStart);
      if (end < 0) return undefined;
      return base(text, 'short', volumeStart, volumeEnd, reporterStart, reporterEnd, abbreviation, pageStart, end);
    }
    let pageStart = spaced;
    if (abbreviation.kind === 'case' && text.charCodeAt(spaced) === Code.OpenParen && abbreviation.editions.some((e) => e.nominative)) {
      const m = NOMINATIVE.exec(text.slice(spaced, spaced + 32));
      if (!m) return undefined;
      pageStart = skipSpaces(text, spaced + m[0].length);
      if (pageStart === spaced + m[0].length) return undefined;
    }
    if (spaced === i && pageStart === spaced) return undefined;
    const end = pageEnd(text, pageStart);
    if (end < 0) return undefined;
    return base(
      text,
      abbreviation.kind === 'journal' ? 'journal' : 'full',
      volumeStart,
      volumeEnd,
      reporterStart,
      reporterEnd,
      abbreviation,
      pageStart,
      end,
    );
  }

  function scanReporterCitations(text: string, out: FoundCitation[]): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      const code = text.charCodeAt(i);
      if (!isDigit(code) || code === Code.Zero) {
        i++;
        continue;
      }
      const end = digitsEnd(text, i);
      const boundary = i === 0 || !isWordChar(text.charCodeAt(i - 1));
      if (boundary && end - i <= MAX_VOLUME_DIGITS) {
        const next = tryAt(text, i, end, out);
        if (next > 0) {
          i = next;
          continue;
        }
      }
      i = end;
    }
  }

  function scanRegex(text: string, pattern: RegExp, kind: CitationKind, out: FoundCitation[]): void {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      out.push({ kind, start: m.index, end: m.index + m[0].length, text: m[0] });
    }
  }

  /** Pin cites, parallel groups and the parenthetical that closes each group. */
  function attachContext(text: string, cites: FoundCitation[]): void {
    let groupStart = -1;
    for (let c = 0; c < cites.length; c++) {
      const cite = cites[c]!;
      if (cite.kind !== 'full') {
        groupStart = -1;
        continue;
      }
      const next = cites[c + 1];
      const limit = Math.min(next ? next.start : text.length, cite.end + MAX_PARENTHETICAL);
      let gap = text.slice(cite.end, limit);
      const pin = PIN.exec(gap);
      if (pin?.[1]) {
        cite.pin = pin[1].replace(/\s+/g, ' ');
        gap = gap.slice(pin[0].length);
      }
      if (groupStart >= 0) cite.parallelTo = groupStart;
      if (next?.kind === 'full' && PARALLEL_GAP.test(gap)) {
        if (groupStart < 0) groupStart = c;
        continue;
      }
      const open = gap.search(/\S/);
      if (open >= 0 && gap.charCodeAt(open) === Code.OpenParen) {
        const close = gap.indexOf(')', open);
        if (close > open) applyParenthetical(cites, groupStart < 0 ? c : groupStart, c, gap.slice(open + 1, close));
      }
      groupStart = -1;
    }
  }

  function applyParenthetical(cites: FoundCitation[], from: number, to: number, inner: string): void {
    let year: number | undefined;
    let yearAt = -1;
    YEAR.lastIndex = 0;
    for (let m = YEAR.exec(inner); m; m = YEAR.exec(inner)) {
      year = Number(m[1]);
      yearAt = m.index + m[0].length - 4;
    }
    const parenthetical = inner.replace(/\s+/g, ' ').trim();
    for (let k = from; k <= to; k++) {
      const cite = cites[k]!;
      cite.parenthetical = parenthetical;
      if (year === undefined || yearAt < 0) continue;
      cite.year = year;
      const editions = cite.editions ?? [];
      if (editions.length > 1) {
        const inRange = editions.filter((e) => (e.startYear ?? 0) <= year! && year! <= (e.endYear ?? 9999));
        if (inRange.length > 0) cite.editions = inRange;
      }
    }
  }

  return {
    extract(text: string): FoundCitation[] {
      const found: FoundCitation[] = [];
      scanReporterCitations(text, found);
      attachContext(text, found);
      const others: FoundCitation[] = [];
      scanRegex(text, ID, 'id', others);
      scanRegex(text, SUPRA, 'supra', others);
      if (others.length === 0) return found;
      const all = [...found, ...others].sort((a, b) => a.start - b.start);
      const position = new Map(all.map((cite, index) => [cite, index]));
      for (const cite of all) if (cite.parallelTo !== undefined) cite.parallelTo = position.get(found[cite.parallelTo]!);
      return all;
    },
  };
}

/** Distinct canonical forms (`volume edition page`), one per candidate edition. */
export function normalizedForms(cite: FoundCitation): string[] {
  const forms = new Set<string>();
  const gap = cite.hyphenated ? '-' : ' ';
  for (const e of cite.editions ?? []) forms.add(`${cite.volume}${gap}${e.key}${gap}${cite.page}`);
  return [...forms];
}

let shared: Extractor | undefined;

export function extractCitations(text: string): FoundCitation[] {
  shared ??= createExtractor();
  return shared.extract(text);
}
