import type { z } from 'zod';
import { caseNameScore, checkCaseName } from '#caselaw/case-names.ts';
import { opsQuota, runFallback } from '#caselaw/fallback.ts';
import type { CaseLawStore, CitedByCursor, ClusterRecord } from '#caselaw/ports.ts';
import { MAX_CITATIONS, type ParsedCitation, parseRequest, type ResolvedCitation, resolveCitations } from '#caselaw/resolve.ts';
import { type ParsedStatute, type ResolvedStatute, resolveStatutes, splitStatutes } from '#caselaw/statutes.ts';
import { AppError } from '#shared/errors.ts';
import { shown as quoteInput } from '../middlewares/input-errors.ts';
import { presentVersion } from '../present.ts';
import type { RouteContext, RouteResult } from '../route.ts';
import type { CaseInputSchema, CitationLookupInputSchema, CitedByInputSchema } from '../schemas-caselaw.ts';
import { withFormatTopic } from './formats.ts';
import { need, todayUtc } from './need.ts';

type LookupInput = z.output<typeof CitationLookupInputSchema>;
type CaseInput = z.output<typeof CaseInputSchema>;
type CitedByInput = z.output<typeof CitedByInputSchema>;

const CASELAW_SOURCE = 'CourtListener (Free Law Project) case-law data, replicated';
const CASELAW_DISCLAIMER =
  'Resolution says which case a citation names; it makes no claim that the case is still good law. Case data from CourtListener (Free Law Project).';
const RESOLUTION =
  'reporters-db normalisation of each full case citation to its edition(s), then an exact (volume, reporter, page) match in the replica; ' +
  'several matches are ranked by the case name the text gives, then the year and court of the citation’s parenthetical, then citation count.';
const COURTLISTENER = 'https://www.courtlistener.com';
const NAME_CHECK =
  ' Where the text names the case before its citation, that name is compared with the names of each cluster found ' +
  '(reporters-db case-name abbreviations expanded): `case_name_check` says whether it matches, with a score.';
const DEFAULT_CITED_BY = 20;
const MAX_CITED_BY = 100;

const needCaseLaw = (store: CaseLawStore | null): CaseLawStore => need(store, 'The case-law replica', 'caselaw_unavailable');

interface ParsedInput {
  cases: ParsedCitation[];
  statutes: ParsedStatute[];
}

const parsedInputs = new WeakMap<object, ParsedInput>();

/**
 * The case and statute citations of a request, parsed once (the meter reserves their number before the handler
 * runs); both kinds count against the one limit.
 */
function parsedOf(input: LookupInput): ParsedInput {
  let parsed = parsedInputs.get(input);
  if (!parsed) {
    const split = splitStatutes(input.text !== undefined ? { text: input.text } : { citations: input.citations ?? [] });
    parsed = { cases: parseRequest(split.cases), statutes: split.statutes };
    parsedInputs.set(input, parsed);
  }
  const count = parsed.cases.length + parsed.statutes.length;
  if (count > MAX_CITATIONS) {
    throw new AppError(
      'too_many',
      `${count} citations (${parsed.cases.length} of cases, ${parsed.statutes.length} of statutes and rules) ${input.text !== undefined ? 'were found in the text' : 'were given'}; at most ${MAX_CITATIONS} are resolved per request.`,
      { citations: count, limit: MAX_CITATIONS },
    );
  }
  return parsed;
}

/** The case citations of a request. */
export const citationsOf = (input: LookupInput): ParsedCitation[] => parsedOf(input).cases;

/** Units: one per citation, case or statute. */
export function citationUnits(input: LookupInput): number {
  const { cases, statutes } = parsedOf(input);
  return cases.length + statutes.length;
}

async function presentStatute(r: ResolvedStatute, { services }: RouteContext) {
  const version = r.answer ? await withFormatTopic(services.formats, r.answer.version) : null;
  return {
    citation: r.parsed.text,
    start_index: r.parsed.start,
    end_index: r.parsed.end,
    jurisdiction: r.parsed.jurisdiction,
    corpus: r.parsed.corpus,
    key: r.parsed.key,
    normalized_citation: r.parsed.normalized,
    asOf: r.asOf,
    status: r.answer ? 200 : r.miss?.code === 'statutes_unavailable' ? 503 : 404,
    result: version && r.answer ? presentVersion(services.site, version, r.answer.pinpoint) : null,
    error: r.miss ? { code: r.miss.code, message: r.miss.message, ...r.miss.details } : null,
  };
}

function presentCluster(c: ClusterRecord) {
  const path = `/opinion/${c.id}/${c.slug || 'case'}/`;
  return {
    id: c.id,
    absolute_url: path,
    courtlistener_url: `${COURTLISTENER}${path}`,
    case_name: c.caseName,
    case_name_full: c.caseNameFull,
    case_name_short: c.caseNameShort,
    date_filed: c.dateFiled,
    court: c.courtId,
    docket_id: c.docketId,
    docket: null,
    precedential_status: c.precedentialStatus,
    citation_count: c.citationCount,
    citations: c.citations,
  };
}

/** The result's case-name check, and each cluster with its score against the name (when the text names the case). */
function presentResult(r: ResolvedCitation) {
  const named = r.parsed.namedAs;
  const scores = named ? r.clusters.map((c) => caseNameScore(named.name, c)) : null;
  const check =
    named && scores
      ? checkCaseName(
          named,
          r.clusters.map((c, i) => ({ id: c.id, score: scores[i]! })),
        )
      : null;
  return {
    citation: r.parsed.citation,
    normalized_citations: r.parsed.normalized,
    start_index: r.parsed.start,
    end_index: r.parsed.end,
    status: r.status,
    error_message: r.errorMessage,
    clusters: r.clusters.map((c, i) => ({
      ...presentCluster(c),
      ...(scores && { case_name_score: scores[i] }),
    })),
    case_name_check: check && {
      name: check.name,
      start_index: check.start,
      end_index: check.end,
      matches: check.matches,
      score: check.score,
      cluster_id: check.clusterId,
    },
  };
}

export async function handleCitationLookup(input: LookupInput, ctx: RouteContext): Promise<RouteResult> {
  const { services, principal } = ctx;
  const store = needCaseLaw(services.caselaw);
  const { cases: parsed, statutes: parsedStatutes } = parsedOf(input);
  const asOf = input.asOf ?? todayUtc(services.now());
  const [found, dataAsOf, statutes] = await Promise.all([
    resolveCitations(store, parsed),
    store.dataAsOf(),
    resolveStatutes(services.lawLookup, parsedStatutes, asOf),
  ]);
  let resolved = found;
  const headers: Record<string, string> = {};
  let fallback: unknown;
  if (input.fallback === 'courtlistener') {
    const { provider, dailyRequests, perRequestCap } = services.fallback;
    const quota = services.ops
      ? opsQuota(services.ops)
      : { take: async () => ({ granted: false, remaining: 0 }), remaining: async () => 0 };
    const outcome = await runFallback(
      { provider, quota, backfill: (batch) => store.write(batch), now: services.now, dailyRequests, perRequestCap },
      found,
      { test: principal?.test ?? false },
    );
    resolved = outcome.results;
    fallback = outcome.summary;
    headers['x-asof-fallback-remaining'] = String(outcome.remaining);
  }
  const body = {
    results: resolved.map(presentResult),
    statutes: await Promise.all(statutes.map((r) => presentStatute(r, ctx))),
    provenance: {
      source: CASELAW_SOURCE,
      dataAsOf,
      resolution: fallback
        ? `${RESOLUTION}${NAME_CHECK} Citations the replica lacked were looked up with CourtListener's citation-lookup API.`
        : `${RESOLUTION}${NAME_CHECK}`,
    },
    ...(fallback !== undefined && { fallback }),
    disclaimer: CASELAW_DISCLAIMER,
  };
  return { body, headers };
}

export async function handleCase(input: CaseInput, { services }: RouteContext): Promise<RouteResult> {
  const store = needCaseLaw(services.caselaw);
  const [cluster] = await store.clusters([input.clusterId]);
  if (!cluster) throw new AppError('not_found', `No case with cluster id ${input.clusterId} in the replica.`);
  const [citedBy, dataAsOf] = await Promise.all([store.citedByCount(cluster.id), store.dataAsOf()]);
  return {
    body: {
      result: { ...presentCluster(cluster), cited_by_count: citedBy },
      provenance: { source: CASELAW_SOURCE, dataAsOf },
      disclaimer: CASELAW_DISCLAIMER,
    },
  };
}

const encodeCursor = (c: CitedByCursor): string => Buffer.from(`${c.citationCount}:${c.id}`).toString('base64url');

function decodeCursor(cursor: string): CitedByCursor {
  const m = /^(\d{1,9}):(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || !Number.isSafeInteger(Number(m[2]))) {
    throw new AppError('bad_parameter', `cursor must be the \`next\` value of a previous page (got ${quoteInput(cursor)}).`, {
      field: 'cursor',
    });
  }
  return { citationCount: Number(m[1]), id: Number(m[2]) };
}

export async function handleCitedBy(input: CitedByInput, { services }: RouteContext): Promise<RouteResult> {
  const store = needCaseLaw(services.caselaw);
  const limit = Math.min(input.limit ?? DEFAULT_CITED_BY, MAX_CITED_BY);
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  // An id the replica does not hold is cited by nothing it holds: an empty page, not a 404 (the spec's not_found is the case endpoint's).
  const [page, dataAsOf] = await Promise.all([store.citedBy(input.clusterId, limit + 1, after), store.dataAsOf()]);
  const shown = page.slice(0, limit);
  const last = shown[shown.length - 1];
  return {
    body: {
      results: shown.map((c) => ({ ...presentCluster(c.cluster), depth: c.depth })),
      next: page.length > limit && last ? encodeCursor({ citationCount: last.cluster.citationCount, id: last.cluster.id }) : null,
      provenance: { source: CASELAW_SOURCE, dataAsOf },
      disclaimer: CASELAW_DISCLAIMER,
    },
  };
}
