/**
 * State codes cited as `<title>-<chapter>-<section>` (Tennessee, Mississippi and most states the same publisher
 * converts): the key is the section number as the state prints it (`1-3-101`, `3-3-15.1`), or `<first>-to-<last>`
 * for a placeholder that stands for a run of sections (`31-3-108-to-31-3-119`, printed "31-3-108 — 31-3-119.
 * [Reserved.]"). Adding a state is one StateCodeSpec: its names and printed forms; the grammar is shared.
 */
export interface StateCodeSpec {
  id: string;
  /** The state's two-letter code, lowercase. */
  jurisdiction: string;
  name: string;
  sourceSystem: string;
  timeZone: string;
  /** What a display starts with: `Tenn. Code Ann.`. */
  citedAs: string;
  /** The printed names a citation may start with, as regex sources (matched case-insensitively, before `§`). */
  printedNames: readonly string[];
  /** A section number, as a regex source without groups (default: digits, two hyphens, an optional decimal). */
  sectionNumber?: string;
  /** Titles' names as the publisher's files head them (`<h1>`), for coverage; a title not listed has none. */
  titleNames: Readonly<Record<string, string>>;
  /** The address of the publisher's collection, for a version whose edition names none of its own. */
  homeUrl: string;
}

const DEFAULT_SECTION = String.raw`\d+-\d+-\d+(?:\.\d+)?`;
// A run of sections is printed "A — B", "A through B", "A to B" (the hyphen alone is the number's own).
const RUN = String.raw`\s*(?:\bto\b|\bthrough\b|\bthru\b|[—–])\s*`;

const squash = (s: string) => s.trim().replace(/\s+/g, ' ');
/** The publisher sometimes prints a section number's hyphens as en dashes (`5–3–77`). */
const hyphens = (s: string) => s.replace(/(\d)\s*[–‑]\s*(?=\d)/g, '$1-');

/** A state code's collection: a Collection of functions/law/collections.ts, which lists it (so this module imports nothing of it). */
export function stateCodeCollection(spec: StateCodeSpec) {
  const section = spec.sectionNumber ?? DEFAULT_SECTION;
  const keyRe = new RegExp(`^(${section})(?:-to-(${section}))?$`);
  const titleRe = /^(\d+)-/;
  const printedRe = new RegExp(
    String.raw`^(?:${spec.printedNames.join('|')})\s*(?:§§?|sec(?:tion)?s?\.?)?\s*(${section})(?:${RUN}(${section}))?(?:\s*\(.*)?$`,
    'i',
  );
  const keyOf = (first: string, last: string | undefined): string | null => {
    const key = last ? `${first}-to-${last}` : first;
    return keyRe.test(key) ? key : null;
  };
  const parts = (key: string): Record<string, string> => {
    const m = keyRe.exec(key);
    if (!m) return {};
    const [title, chapter] = m[1]!.split('-');
    return { title: title!, chapter: chapter!, section: key };
  };
  return {
    id: spec.id,
    jurisdiction: spec.jurisdiction,
    corpus: 'statutes' as const,
    name: spec.name,
    cadenceClass: 'edition' as const,
    temporalBasis: 'compiled-edition' as const,
    timeZone: spec.timeZone,
    sourceSystem: spec.sourceSystem,
    ownsKey: (key: string) => keyRe.test(key),
    normalizeKey: (raw: string): string | null => {
      const k = hyphens(squash(raw))
        .replace(/^§§?\s*/, '')
        .replace(new RegExp(`(${section})${RUN}(${section})`), '$1-to-$2')
        .replace(/\s*-\s*/g, '-')
        .toLowerCase();
      return keyRe.test(k) ? k : null;
    },
    parsePrinted: (text: string): string | null => {
      const m = printedRe.exec(hyphens(squash(text)));
      return m ? keyOf(m[1]!, m[2]) : null;
    },
    printedPatterns: [printedRe],
    display: (key: string): string => {
      const m = keyRe.exec(key);
      if (m?.[2]) return `${spec.citedAs} §§ ${m[1]} to ${m[2]}`;
      return `${spec.citedAs} § ${key}`;
    },
    parts,
    sourceUrl: () => spec.homeUrl,
    titleOf: (keyOrPrefix: string): string | null => titleRe.exec(keyOrPrefix)?.[1] ?? null,
    titleName: (title: string): string | undefined => spec.titleNames[title],
  };
}

export const tennesseeCode = stateCodeCollection({
  id: 'tn-code',
  jurisdiction: 'tn',
  name: 'Tennessee Code Annotated',
  sourceSystem: 'Official Code of Tennessee Annotated, structured HTML by UniCourt for Public.Resource.Org (UniCourt/cic-code-tn)',
  timeZone: 'America/Chicago',
  citedAs: 'Tenn. Code Ann.',
  printedNames: [
    String.raw`Tenn\.?\s*Code\s*Ann(?:otated|\.)?`,
    String.raw`Tennessee\s+Code(?:\s+Annotated)?`,
    String.raw`T\.\s?C\.\s?A\.?`,
    'TCA',
  ],
  // As the files of release 76 head them (`<h1>Title 1<br/>Code And Statutes</h1>`); the reader's tests check them.
  titleNames: {
    '1': 'Code And Statutes',
    '15': 'Holidays and Days of Special Observance',
    '22': 'Juries And Jurors',
    '23': 'Attorneys-at-law',
    '31': 'Descent And Distribution',
  },
  homeUrl: 'https://github.com/UniCourt/cic-code-tn',
});

export const mississippiCode = stateCodeCollection({
  id: 'ms-code',
  jurisdiction: 'ms',
  name: 'Mississippi Code of 1972 Annotated',
  sourceSystem: 'Official Code of Mississippi Annotated, structured HTML by UniCourt for Public.Resource.Org (UniCourt/cic-code-ms)',
  timeZone: 'America/Chicago',
  citedAs: 'Miss. Code Ann.',
  printedNames: [
    String.raw`Miss\.?\s*Code\s*(?:of\s+)?(?:1972\s*)?Ann(?:otated|\.)?(?:\s*of\s+1972)?`,
    String.raw`Mississippi\s+Code(?:\s+of\s+1972)?(?:\s+Annotated)?`,
    String.raw`Miss\.?\s*Code`,
  ],
  titleNames: {
    '1': 'Laws and Statutes',
    '3': 'State sovereignty, jurisdiction and holidays',
    '5': 'Legislative Department',
    '87': 'Contracts and Contractual Relations',
    '95': 'Torts',
  },
  homeUrl: 'https://github.com/UniCourt/cic-code-ms',
});

export const STATE_CODES = [tennesseeCode, mississippiCode] as const;
