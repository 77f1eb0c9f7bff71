/**
 * CourtListener's citation-lookup API (POST /api/rest/v4/citation-lookup/, `Authorization: Token …`, form field
 * `text`) as the fallback CitationProvider. Its documented answers: 200 with one result per citation found (status
 * 200/300/404/400/429 each, clusters inline); 429 with `wait_until` (ISO 8601) once the token passes its citations
 * per minute, or with Retry-After from the general API throttle. Anything else, a timeout, or a body that is not
 * that shape is "unavailable": the caller's request goes on without it.
 */
import * as z from 'zod';
import { type CitationProvider, type FallbackConfig, NO_FALLBACK, type ProviderAnswer, type ProviderMatch } from '#caselaw/fallback.ts';
import type { ClusterRecord } from '#caselaw/ports.ts';
import { leadingDate } from '#shared/dates.ts';

export interface CourtListenerProviderOptions {
  /** `https://www.courtlistener.com` in production. */
  baseUrl: string;
  /** The API token, or how to read it once (in AWS, from Secrets Manager on first use). */
  token: string | (() => Promise<string>);
  timeoutMs?: number;
}

const ProviderCluster = z.looseObject({
  id: z.number().int(),
  absolute_url: z.string().optional(),
  case_name: z.string().nullish(),
  case_name_full: z.string().nullish(),
  case_name_short: z.string().nullish(),
  date_filed: z.string().nullish(),
  docket_id: z.number().int().nullish(),
  court_id: z.string().nullish(),
  court: z.string().nullish(),
  precedential_status: z.string().nullish(),
  citation_count: z.number().int().nullish(),
  judges: z.string().nullish(),
  slug: z.string().nullish(),
  citations: z
    .array(
      z.looseObject({
        volume: z.union([z.string(), z.number()]),
        reporter: z.string(),
        page: z.union([z.string(), z.number()]),
        type: z.number().int().nullish(),
      }),
    )
    .nullish(),
});

const ProviderResults = z.array(
  z.looseObject({
    citation: z.string(),
    normalized_citations: z.array(z.string()),
    status: z.number().int(),
    clusters: z.array(ProviderCluster),
  }),
);

const courtIdOf = (c: z.infer<typeof ProviderCluster>): string | null => {
  const raw = c.court_id ?? c.court ?? null;
  if (!raw) return null;
  return /\/courts\/([\w-]+)\/?$/.exec(raw)?.[1] ?? (/^[\w-]+$/.test(raw) ? raw : null);
};

function clusterFromProvider(c: z.infer<typeof ProviderCluster>): ClusterRecord {
  const slug = c.slug ?? /\/opinion\/\d+\/([^/]+)\/?$/.exec(c.absolute_url ?? '')?.[1] ?? '';
  return {
    id: c.id,
    docketId: c.docket_id ?? null,
    courtId: courtIdOf(c),
    caseName: c.case_name ?? '',
    caseNameFull: c.case_name_full ?? '',
    caseNameShort: c.case_name_short ?? '',
    dateFiled: leadingDate(c.date_filed),
    slug,
    precedentialStatus: c.precedential_status ?? '',
    citationCount: c.citation_count ?? 0,
    judges: c.judges ?? '',
    courtCitationString: '',
    citations: (c.citations ?? []).map((x) => ({
      volume: String(x.volume),
      reporter: x.reporter,
      page: String(x.page),
      type: x.type ?? 0,
    })),
  };
}

function retryAtOf(res: Response, body: unknown): Date | null {
  const waitUntil = (body as { wait_until?: unknown } | null)?.wait_until;
  if (typeof waitUntil === 'string' && !Number.isNaN(Date.parse(waitUntil))) return new Date(waitUntil);
  const after = Number(res.headers.get('retry-after'));
  return Number.isFinite(after) && after > 0 ? new Date(Date.now() + after * 1000) : null;
}

export class CourtListenerCitationProvider implements CitationProvider {
  private readonly url: string;
  private token: Promise<string> | null = null;

  constructor(private readonly options: CourtListenerProviderOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/api/rest/v4/citation-lookup/`;
  }

  /** The token, read once; a failed read is retried on the next call rather than remembered. */
  private readToken(): Promise<string> {
    const { token } = this.options;
    if (typeof token === 'string') return Promise.resolve(token);
    this.token ??= token().catch((err: unknown) => {
      this.token = null;
      throw err;
    });
    return this.token;
  }

  async lookup(citations: ReadonlyArray<{ volume: string; reporter: string; page: string }>): Promise<ProviderAnswer> {
    const text = citations.map((c) => `${c.volume} ${c.reporter} ${c.page}`).join('; ');
    let res: Response;
    let body: unknown;
    try {
      const token = await this.readToken();
      res = await fetch(this.url, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ text }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 4_000),
      });
      const raw = await res.text();
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
    } catch (err) {
      return { kind: 'unavailable', reason: (err as Error).name === 'TimeoutError' ? 'timeout' : `network: ${(err as Error).message}` };
    }
    if (res.status === 429) return { kind: 'rate_limited', retryAt: retryAtOf(res, body) };
    if (!res.ok) return { kind: 'unavailable', reason: `HTTP ${res.status}` };
    const parsed = ProviderResults.safeParse(body);
    if (!parsed.success) return { kind: 'unavailable', reason: 'an answer that is not a list of citation results' };
    const matches: ProviderMatch[] = parsed.data.map((r) => ({
      normalized: r.normalized_citations,
      status: ([200, 300, 404, 400, 429].includes(r.status) ? r.status : 404) as ProviderMatch['status'],
      clusters: r.clusters.map(clusterFromProvider),
    }));
    return { kind: 'ok', matches };
  }
}

/**
 * The fallback on the shared token: the token itself, or how to read it on first use (a read that fails makes that
 * call's fallback `unavailable`, never the call). No token: no fallback (a requested one answers `unavailable`).
 */
export function sharedTokenFallback(
  settings: { baseUrl: string; timeoutMs: number; dailyRequests: number; perRequestCap: number },
  token: string | (() => Promise<string>) | null,
): FallbackConfig {
  if (token === null || token === '') return NO_FALLBACK;
  return {
    provider: new CourtListenerCitationProvider({ baseUrl: settings.baseUrl, token, timeoutMs: settings.timeoutMs }),
    dailyRequests: settings.dailyRequests,
    perRequestCap: settings.perRequestCap,
  };
}
