/**
 * Statute and court-rule citations of a citation-lookup request (citations/statutes.ts finds them), each resolved to
 * the section version in force on the request's date through the law lookup it is given (the same lookup, and so
 * the same answers and 404 codes, as /law/lookup), never through a store of its own.
 */
import type { LookupAnswer, LookupParams } from '#law/lookup.ts';
import type { Corpus } from '#law/model.ts';
import { forEachBounded } from '#shared/bounded.ts';
import { AppError } from '#shared/errors.ts';
import { Semaphore } from '#shared/semaphore.ts';
import { type FoundStatute, findStatuteCitations } from './citations/statutes.ts';
import { codePointLength, codePointOffsets } from './code-points.ts';
import type { CitationItem, ResolutionRequest } from './resolve.ts';

/** The law lookup, injected: /law/lookup's own (functions/law/lookup.ts over the deployment's version store). */
export type LawLookup = (params: Pick<LookupParams, 'jurisdiction' | 'citation' | 'asOf' | 'corpus'>) => Promise<LookupAnswer>;

/** One statute citation to resolve; offsets in code points, as the case citations' (code-points.ts). */
export interface ParsedStatute extends Omit<FoundStatute, 'start' | 'end'> {
  start: number;
  end: number;
}

/** The lookup's own 404 codes, answered per citation; any other failure fails the request as it would fail a lookup. */
export type StatuteMiss = {
  code: 'not_carried' | 'no_edition_on_file' | 'statutes_unavailable';
  message: string;
  details: Record<string, unknown>;
};

export interface ResolvedStatute {
  parsed: ParsedStatute;
  asOf: string;
  answer: LookupAnswer | null;
  miss: StatuteMiss | null;
}

const MISSES = new Set(['not_carried', 'no_edition_on_file']);

function inCodePoints(found: FoundStatute[], text: string): ParsedStatute[] {
  const toCodePoints = codePointOffsets(text);
  return found.map((f) => ({ ...f, start: toCodePoints(f.start), end: toCodePoints(f.end) }));
}

/** A `citations` item that is, whole, one statute citation (`"28 U.S.C. § 1291"`); objects are case citations. */
function statuteItem(item: CitationItem): ParsedStatute | null {
  if (typeof item !== 'string') return null;
  const found = findStatuteCitations(item);
  const only = found.length === 1 ? found[0]! : undefined;
  if (!only || item.slice(0, only.start).trim() !== '' || item.slice(only.end).trim() !== '') return null;
  return { ...only, start: 0, end: codePointLength(item) };
}

/**
 * A request split in two: its statute citations, and what is left for the case-citation parser (the text as it is:
 * the two kinds never overlap; the `citations` items that are not statute citations).
 */
export function splitStatutes(request: ResolutionRequest): { statutes: ParsedStatute[]; cases: ResolutionRequest } {
  if ('text' in request) return { statutes: inCodePoints(findStatuteCitations(request.text), request.text), cases: request };
  const statutes: ParsedStatute[] = [];
  const cases: CitationItem[] = [];
  for (const item of request.citations) {
    const statute = statuteItem(item);
    if (statute) statutes.push(statute);
    else cases.push(item);
  }
  return { statutes, cases: { citations: cases } };
}

/**
 * What the lookup is asked: the collection's display of the key with its pinpoint, or a code's name and section
 * (a `§§` list prints the name once: its later sections are bare numbers).
 */
const asked = (s: ParsedStatute): { citation: string; corpus?: Corpus } => ({
  citation: s.normalized,
  ...(s.collection !== null && { corpus: s.corpus }),
});

/**
 * Lookups of one request in flight at once: enough to overlap the store's latency, few enough that a request of 250
 * statute citations does not take the store's connections (or a Lambda's sockets) for itself.
 */
export const STATUTE_LOOKUPS_IN_FLIGHT = 8;

/**
 * Statute lookups in flight across every request of the process (the local server; a Lambda serves one request at
 * a time): eight requests of 250 citations would otherwise keep eight times `STATUTE_LOOKUPS_IN_FLIGHT` reads at the
 * version store, and a cheap /law/lookup would queue behind them all.
 */
export const STATUTE_LOOKUPS_IN_PROCESS = 16;

const processLookups = new Semaphore(STATUTE_LOOKUPS_IN_PROCESS);

/** Statute lookups running now in this process, every request's together. */
export const statuteLookupsInFlight = (): number => processLookups.running;

const UNAVAILABLE: StatuteMiss = {
  code: 'statutes_unavailable',
  message: 'The law corpus store is not configured on this deployment.',
  details: {},
};

/** Each citation's version in force on `asOf`, or the lookup's 404; one lookup per distinct citation. */
export async function resolveStatutes(
  lookup: LawLookup | null,
  parsed: readonly ParsedStatute[],
  asOf: string,
): Promise<ResolvedStatute[]> {
  const idOf = (s: ParsedStatute): string => {
    const q = asked(s);
    return `${s.jurisdiction}|${q.corpus ?? ''}|${q.citation}`;
  };
  const ids = parsed.map(idOf);
  const distinct = new Map<string, ParsedStatute>();
  for (const [i, s] of parsed.entries()) if (!distinct.has(ids[i]!)) distinct.set(ids[i]!, s);
  const outcomes = new Map<string, LookupAnswer | StatuteMiss>();
  await forEachBounded([...distinct], STATUTE_LOOKUPS_IN_FLIGHT, async ([id, s]) => {
    outcomes.set(id, lookup ? await processLookups.run(() => lookUp(lookup, s, asOf)) : UNAVAILABLE);
  });
  return parsed.map((p, i) => {
    const outcome = outcomes.get(ids[i]!)!;
    return 'code' in outcome ? { parsed: p, asOf, answer: null, miss: outcome } : { parsed: p, asOf, answer: outcome, miss: null };
  });
}

async function lookUp(lookup: LawLookup, s: ParsedStatute, asOf: string): Promise<LookupAnswer | StatuteMiss> {
  try {
    return await lookup({ jurisdiction: s.jurisdiction, asOf, ...asked(s) });
  } catch (err) {
    if (err instanceof AppError && MISSES.has(err.code)) {
      return { code: err.code as StatuteMiss['code'], message: err.message, details: err.details };
    }
    throw err;
  }
}
