/**
 * Case-citation resolution, in CourtListener's citation-lookup vocabulary: each full case citation found (or given)
 * is normalised to its reporters-db edition(s) and matched exactly on (volume, reporter, page) in the replica.
 * 200 one cluster; 300 several (up to eight, ranked); 404 a known reporter with no match; 400 an unknown reporter.
 */
import { caseNameScore, type NameInText, nameBefore } from './case-names.ts';
import { extractCitations, type FoundCitation, normalizedForms } from './citations/extract.ts';
import { type Edition, reportersDb } from './citations/reporters.ts';
import { codePointLength, codePointOffsets } from './code-points.ts';
import { type CaseLawStore, type ClusterRecord, formKey } from './ports.ts';

export const MAX_CITATIONS = 250;
export const MAX_TEXT_CHARS = 64_000;
export const MAX_CANDIDATES = 8;

export type CitationItem = string | { volume: string | number; reporter: string; page: string | number };

export type ResolutionRequest = { text: string } | { citations: readonly CitationItem[] };

/** One citation to resolve: where it was, what it says, what it may mean. */
export interface ParsedCitation {
  citation: string;
  /** [start, end) in code points of the request's text, as CourtListener counts them (code-points.ts). */
  start: number;
  end: number;
  volume: string;
  reporter: string;
  page: string;
  /** null: the reporter is not one reporters-db knows (status 400). */
  editions: readonly Edition[] | null;
  normalized: string[];
  year?: number;
  parenthetical?: string;
  /** Set when the item could not be read as a citation at all. */
  unreadable?: string;
  /** The case name the text prints before the citation (or its parallel group), offsets in code points. */
  namedAs?: NameInText;
}

export interface ResolvedCitation {
  parsed: ParsedCitation;
  status: 200 | 300 | 400 | 404;
  errorMessage: string;
  clusters: ClusterRecord[];
}

const LOOSE = /^\s*(\d+)\s+(.+?),?\s+(\d+)\s*$/;

/** The name printed before `all[index]` (or before the first citation of its parallel group), never past the citation before. */
export function namedBefore(text: string, all: readonly FoundCitation[], index: number): NameInText | undefined {
  const head = all[index]!.parallelTo ?? index;
  const found = nameBefore(text, all[head]!.start, head > 0 ? all[head - 1]!.end : 0);
  return found ?? undefined;
}

function fromFound(c: FoundCitation, toCodePoints: (utf16Offset: number) => number, named?: NameInText): ParsedCitation {
  return {
    citation: c.text,
    start: toCodePoints(c.start),
    end: toCodePoints(c.end),
    volume: c.volume ?? '',
    reporter: c.reporter ?? '',
    page: c.page ?? '',
    editions: c.editions ?? null,
    normalized: normalizedForms(c),
    ...(c.year !== undefined && { year: c.year }),
    ...(c.parenthetical !== undefined && { parenthetical: c.parenthetical }),
    ...(named && { namedAs: { name: named.name, start: toCodePoints(named.start), end: toCodePoints(named.end) } }),
  };
}

function unknownReporter(citation: string, volume: string, reporter: string, page: string): ParsedCitation {
  return { citation, start: 0, end: codePointLength(citation), volume, reporter, page, editions: null, normalized: [] };
}

function parseItem(item: CitationItem): ParsedCitation {
  if (typeof item === 'string') {
    const all = extractCitations(item);
    const index = all.findIndex(isResolvable);
    if (index >= 0) return fromFound(all[index]!, codePointOffsets(item), namedBefore(item, all, index));
    const loose = LOOSE.exec(item);
    if (loose) return unknownReporter(item, loose[1]!, loose[2]!.replace(/\s+/g, ' '), loose[3]!);
    return { ...unknownReporter(item, '', '', ''), unreadable: 'not a citation of the form "volume reporter page"' };
  }
  const volume = String(item.volume).trim();
  const page = String(item.page).trim();
  const reporter = item.reporter.replace(/\s+/g, ' ').trim();
  const citation = `${volume} ${reporter} ${page}`;
  const abbreviation = reportersDb().abbreviations.get(reporter);
  if (abbreviation?.kind !== 'case') return unknownReporter(citation, volume, reporter, page);
  // Read through the extractor so that an object and its printed form normalise the same way.
  const found = extractCitations(citation).find((c) => isResolvable(c) && c.start === 0 && c.end === citation.length);
  if (found) return fromFound(found, codePointOffsets(citation));
  const normalized = [...new Set(abbreviation.editions.map((e) => `${volume} ${e.key} ${page}`))];
  return { citation, start: 0, end: codePointLength(citation), volume, reporter, page, editions: abbreviation.editions, normalized };
}

/**
 * A full case citation with a page: a placeholder (`576 U.S. ___`) names no page to match, so it is found but not
 * resolved or billed, as CourtListener leaves it unresolved.
 */
function isResolvable(c: FoundCitation): boolean {
  return c.kind === 'full' && !c.placeholder;
}

/** The citations of a request, in order: the full case citations of `text`, or each item of `citations`. */
export function parseRequest(request: ResolutionRequest): ParsedCitation[] {
  if ('text' in request) {
    const toCodePoints = codePointOffsets(request.text);
    const all = extractCitations(request.text);
    return all.flatMap((c, i) => (isResolvable(c) ? [fromFound(c, toCodePoints, namedBefore(request.text, all, i))] : []));
  }
  return request.citations.map(parseItem);
}

/**
 * Most likely first: the case the text names (case-names.ts), then the parenthetical's year, then its court, then the
 * most cited, then the oldest id.
 */
function rank(parsed: ParsedCitation, clusters: ClusterRecord[], courtStrings: ReadonlyMap<string, string>): ClusterRecord[] {
  const named = parsed.namedAs;
  const nameScores = new Map(named ? clusters.map((c) => [c.id, caseNameScore(named.name, c)] as const) : []);
  const nameScore = (c: ClusterRecord): number => nameScores.get(c.id) ?? 0;
  const score = (c: ClusterRecord): number => {
    let s = 0;
    if (parsed.year !== undefined && c.dateFiled?.startsWith(String(parsed.year))) s += 2;
    const courtString = c.courtId ? courtStrings.get(c.courtId) : undefined;
    if (courtString && parsed.parenthetical?.includes(courtString)) s += 1;
    return s;
  };
  return [...clusters].sort(
    (a, b) => nameScore(b) - nameScore(a) || score(b) - score(a) || b.citationCount - a.citationCount || a.id - b.id,
  );
}

export async function resolveCitations(store: CaseLawStore, parsed: readonly ParsedCitation[]): Promise<ResolvedCitation[]> {
  const forms = new Map<string, { volume: string; reporter: string; page: string }>();
  for (const p of parsed) {
    for (const e of p.editions ?? []) {
      const form = { volume: p.volume, reporter: e.key, page: p.page };
      forms.set(formKey(form), form);
    }
  }
  const byForm = forms.size ? await store.clustersByCitation([...forms.values()]) : new Map<string, number[]>();
  const idsOf = (p: ParsedCitation): number[] => [
    ...new Set((p.editions ?? []).flatMap((e) => byForm.get(formKey({ volume: p.volume, reporter: e.key, page: p.page })) ?? [])),
  ];
  const allIds = [...new Set(parsed.flatMap(idsOf))];
  const records = new Map((allIds.length ? await store.clusters(allIds) : []).map((c) => [c.id, c]));
  const needsCourts = parsed.some((p) => p.parenthetical && idsOf(p).length > 1);
  const courtStrings = new Map(needsCourts ? (await store.courts()).map((c) => [c.id, c.citationString] as const) : []);

  return parsed.map((p): ResolvedCitation => {
    if (p.unreadable) return { parsed: p, status: 400, errorMessage: `Could not read '${p.citation}': ${p.unreadable}.`, clusters: [] };
    if (!p.editions) return { parsed: p, status: 400, errorMessage: `Unknown reporter '${p.reporter}' in '${p.citation}'.`, clusters: [] };
    const clusters = idsOf(p).flatMap((id) => records.get(id) ?? []);
    if (clusters.length === 0)
      return { parsed: p, status: 404, errorMessage: `Citation not found: '${p.normalized.join("' or '")}'.`, clusters: [] };
    if (clusters.length === 1) return { parsed: p, status: 200, errorMessage: '', clusters };
    const ranked = rank(p, clusters, courtStrings).slice(0, MAX_CANDIDATES);
    return {
      parsed: p,
      status: 300,
      errorMessage: `${clusters.length} clusters match; the ${ranked.length} most likely are listed first by ${p.namedAs ? 'the case name the text gives, then ' : ''}year, court and citation count.`,
      clusters: ranked,
    };
  });
}
