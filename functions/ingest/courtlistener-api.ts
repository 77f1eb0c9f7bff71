/**
 * CourtListener records in their API shapes into replica rows:
 *  - the court table as CourtListener's Django fixture (`[{model: 'search.court', pk, fields}]`);
 *  - REST API v3 opinion records flattened with their cluster, docket and court (`CL_opinion_*`, `CL_cluster_*`, …),
 *    with `Cases_Cited_Link` (the opinions it cites) and `HTMLtext` (html_with_citations: each citation of an
 *    opinion marked with its `data-id`, so the number of marks per cited opinion is the edge's depth);
 *  - an `opinion_clusters` listing with `sub_opinions[].opinions_cited` (the citation-network fixture).
 * Nothing is filled in that the record does not say: a cluster without a docket has no court.
 */
import { extractCitations } from '#caselaw/citations/extract.ts';
import type { CitationRow, ClusterRow, CourtRow, DocketRow, OpinionCitedRow, OpinionRow, ReplicaBatch } from '#caselaw/ports.ts';
import { leadingDate as dateOnly } from '#shared/dates.ts';

const idFromUri = (uri: unknown): string | null => (typeof uri === 'string' ? (/\/(\w[\w-]*)\/?$/.exec(uri)?.[1] ?? null) : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

interface CourtFixture {
  model: string;
  pk: string;
  fields: Record<string, unknown>;
}

export function courtsFromFixture(fixture: readonly CourtFixture[]): CourtRow[] {
  return fixture
    .filter((r) => r.model === 'search.court')
    .map((r) => ({
      id: r.pk,
      fullName: str(r.fields.full_name),
      shortName: str(r.fields.short_name),
      citationString: str(r.fields.citation_string),
      jurisdiction: str(r.fields.jurisdiction),
      position: typeof r.fields.position === 'number' ? r.fields.position : null,
      startDate: dateOnly(r.fields.start_date),
      endDate: dateOnly(r.fields.end_date),
      inUse: r.fields.in_use !== false,
      url: str(r.fields.url),
    }));
}

/** CourtListener's citation types, by the API v3 cluster field that holds the citation. */
const CITE_FIELDS: ReadonlyArray<[string, number]> = [
  ['CL_cluster_federal_cite_one', 1],
  ['CL_cluster_federal_cite_two', 1],
  ['CL_cluster_federal_cite_three', 1],
  ['CL_cluster_state_cite_one', 2],
  ['CL_cluster_state_cite_two', 2],
  ['CL_cluster_state_cite_three', 2],
  ['CL_cluster_state_cite_regional', 3],
  ['CL_cluster_specialty_cite_one', 4],
  ['CL_cluster_scotus_early_cite', 5],
  ['CL_cluster_lexis_cite', 6],
  ['CL_cluster_westlaw_cite', 7],
  ['CL_cluster_neutral_cite', 8],
];

/** `267 Ga. 9` as CourtListener stores it: volume, the edition's own abbreviation, page. */
export function citationRow(printed: string, type: number): CitationRow | null {
  const found = extractCitations(printed).find((c) => c.kind === 'full');
  const edition = found?.editions?.[0];
  if (!found || !edition) return null;
  return { volume: found.volume!, reporter: edition.key, page: found.page!, type };
}

/** How many times each opinion id is marked in html_with_citations. */
export function markCounts(html: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const m of html.matchAll(/<span class="citation[^"]*" data-id="(\d+)"/g)) {
    const id = Number(m[1]);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** A citation CourtListener marked in html_with_citations and linked to the opinion it resolved it to. */
export type MarkedCitation = [opinionId: number, volume: string, reporter: string, page: string];

const inner = (html: string): string => html.replace(/<[^>]+>/g, '').trim();

/** The citations marked in html_with_citations, in order, with the opinion each is linked to. */
export function markedCitations(html: string): MarkedCitation[] {
  const out: MarkedCitation[] = [];
  const span =
    /<span class="citation[^"]*" data-id="(\d+)">(?:(?!<\/span><\/a><\/span>)[\s\S]){0,600}?<span class="volume">([^<]*)<\/span>\s*<span class="reporter">([^<]*)<\/span>\s*<span class="page">([^<]*)<\/span>/g;
  for (const m of html.matchAll(span)) out.push([Number(m[1]), inner(m[2]!), inner(m[3]!), inner(m[4]!)]);
  return out;
}

/** CourtListener's citation type for a reporters-db `cite_type` (as CourtListener maps them). */
const CITE_TYPES: Readonly<Record<string, number>> = {
  federal: 1,
  state: 2,
  state_regional: 3,
  specialty: 4,
  scotus_early: 5,
  specialty_lexis: 6,
  specialty_west: 7,
  neutral: 8,
};

/** A marked citation as a citation row of the cluster it names, typed by its reporter. */
export function linkedCitationRow([, volume, reporter, page]: MarkedCitation): CitationRow | null {
  const found = extractCitations(`${volume} ${reporter} ${page}`).find((c) => c.kind === 'full');
  const edition = found?.editions?.[0];
  const type = edition ? CITE_TYPES[edition.citeType] : undefined;
  return found && edition && type ? { volume: found.volume!, reporter: edition.key, page: found.page!, type } : null;
}

export interface ApiV3Record {
  CL_opinion_id: string;
  CL_opinion_type?: string;
  CL_opinion_author_str?: string;
  CL_opinion_download_url?: string;
  CL_opinion_cluster: Record<string, unknown> & {
    CL_cluster_docket?: Record<string, unknown> & { CL_docket_court?: Record<string, unknown> };
  };
  Cases_Cited_Link?: string[];
  HTMLtext?: string;
  /** The citations of HTMLtext, when the record carries them instead of the text (derived: bin/derive-caselaw-records.ts). */
  HTMLtext_citations?: MarkedCitation[];
  Document_Level_Tags?: string[];
}

/** The rows of one API v3 record, and the day it was pulled (`ScrapeDate_MMDDYYYY`), when it says. */
export function rowsFromApiV3(record: ApiV3Record): {
  batch: Required<Pick<ReplicaBatch, 'dockets' | 'clusters' | 'citations' | 'opinions' | 'opinionsCited'>>;
  retrievedOn: string | null;
  skipped: string[];
  /** The citations CourtListener linked to the opinions this one cites. */
  marked: MarkedCitation[];
} {
  const cluster = record.CL_opinion_cluster;
  const docket = cluster.CL_cluster_docket;
  const clusterId = Number(idFromUri(cluster.CL_cluster_resource_uri));
  const docketId = docket ? Number(idFromUri(docket.CL_docket_resource_uri)) : NaN;
  const courtId = idFromUri(docket?.CL_docket_court?.CL_court_resource_uri);
  const opinionId = Number(record.CL_opinion_id);
  if (!Number.isInteger(clusterId) || !Number.isInteger(opinionId))
    throw new Error(`record ${record.CL_opinion_id}: no cluster or opinion id`);

  const dockets: DocketRow[] = Number.isInteger(docketId)
    ? [
        {
          id: docketId,
          courtId,
          caseName: str(docket?.CL_docket_case_name),
          docketNumber: str(docket?.CL_docket_docket_number),
          slug: str(docket?.CL_docket_slug),
        },
      ]
    : [];
  const clusters: ClusterRow[] = [
    {
      id: clusterId,
      docketId: dockets[0]?.id ?? null,
      courtId,
      caseName: str(cluster.CL_cluster_case_name),
      caseNameFull: str(cluster.CL_cluster_case_name_full),
      caseNameShort: str(cluster.CL_cluster_case_name_short),
      dateFiled: dateOnly(cluster.CL_cluster_date_filed),
      slug: str(cluster.CL_cluster_slug),
      precedentialStatus: str(cluster.CL_cluster_precedential_status),
      citationCount: typeof cluster.CL_cluster_citation_count === 'number' ? cluster.CL_cluster_citation_count : 0,
      judges: str(cluster.CL_cluster_judges),
    },
  ];
  const skipped: string[] = [];
  const citations = CITE_FIELDS.flatMap(([field, type]) => {
    const printed = str(cluster[field]).trim();
    if (!printed) return [];
    const row = citationRow(printed, type);
    if (!row) skipped.push(`${field} '${printed}'`);
    return row ? [{ ...row, clusterId }] : [];
  });
  const opinions: OpinionRow[] = [
    {
      id: opinionId,
      clusterId,
      type: str(record.CL_opinion_type),
      authorStr: str(record.CL_opinion_author_str),
      downloadUrl: str(record.CL_opinion_download_url),
    },
  ];
  const marked = record.HTMLtext_citations ?? markedCitations(record.HTMLtext ?? '');
  const marks = record.HTMLtext !== undefined ? markCounts(record.HTMLtext) : new Map<number, number>();
  if (record.HTMLtext === undefined) for (const [id] of marked) marks.set(id, (marks.get(id) ?? 0) + 1);
  const cited = new Set(
    (record.Cases_Cited_Link ?? []).map((u) => Number(idFromUri(u))).filter((id) => Number.isInteger(id) && id !== opinionId),
  );
  const opinionsCited: OpinionCitedRow[] = [...cited].map((id) => ({
    citingOpinionId: opinionId,
    citedOpinionId: id,
    depth: Math.max(1, marks.get(id) ?? 0),
  }));
  const scrape = (record.Document_Level_Tags ?? []).map((t) => /^ScrapeDate_(\d\d)(\d\d)(\d{4})$/.exec(t)).find(Boolean);
  return {
    batch: { dockets, clusters, citations, opinions, opinionsCited },
    retrievedOn: scrape ? `${scrape[3]}-${scrape[1]}-${scrape[2]}` : null,
    skipped,
    marked,
  };
}

/** What a CourtListener Django fixture says of clusters: the court of each one's docket, its precedential status. */
export interface ClusterFacts {
  id: number;
  courtId?: string;
  precedentialStatus?: string;
}

/**
 * The facts of a Django fixture's `search.opinioncluster` records (with the court of the `search.docket` each points
 * to). Only facts: a fixture's dockets may be numbered for the test (docket numbers `1`, `2`, …), so none is loaded.
 */
export function clusterFactsFromFixture(fixture: readonly CourtFixture[]): ClusterFacts[] {
  const courtOfDocket = new Map(
    fixture
      .filter((r) => r.model === 'search.docket' && typeof r.fields.court === 'string')
      .map((r) => [String(r.pk), r.fields.court as string]),
  );
  return fixture
    .filter((r) => r.model === 'search.opinioncluster')
    .map((r) => {
      const courtId = courtOfDocket.get(String(r.fields.docket));
      const status = str(r.fields.precedential_status);
      return { id: Number(r.pk), ...(courtId && { courtId }), ...(status && { precedentialStatus: status }) };
    });
}

interface NetworkCluster {
  id: number;
  absolute_url?: string;
  case_name?: string;
  case_name_short?: string;
  citation_count?: number;
  date_filed?: string;
  sub_opinions?: Array<{ opinions_cited?: number[]; type?: string }>;
}

/**
 * The citation-network fixture's clusters. Its sub-opinions carry no ids of their own; CourtListener's fixture cites
 * opinions by the id of their cluster (each of these clusters has one opinion, numbered like it), so that is the
 * opinion each edge starts and ends at. Its edges carry no depth: 1 each.
 */
export function rowsFromNetwork(listing: {
  opinion_clusters: NetworkCluster[];
}): Required<Pick<ReplicaBatch, 'clusters' | 'opinions' | 'opinionsCited'>> {
  const clusters: ClusterRow[] = [];
  const opinions: OpinionRow[] = [];
  const opinionsCited: OpinionCitedRow[] = [];
  for (const c of listing.opinion_clusters) {
    clusters.push({
      id: c.id,
      docketId: null,
      courtId: null,
      caseName: str(c.case_name),
      caseNameFull: '',
      caseNameShort: str(c.case_name_short),
      dateFiled: dateOnly(c.date_filed),
      slug: /^\/opinion\/\d+\/([^/]+)\/?$/.exec(str(c.absolute_url))?.[1] ?? '',
      precedentialStatus: '',
      citationCount: c.citation_count ?? 0,
      judges: '',
    });
    opinions.push({ id: c.id, clusterId: c.id, type: str(c.sub_opinions?.[0]?.type), authorStr: '', downloadUrl: '' });
    const cited = new Set((c.sub_opinions ?? []).flatMap((o) => o.opinions_cited ?? []));
    for (const id of cited) if (id !== c.id) opinionsCited.push({ citingOpinionId: c.id, citedOpinionId: id, depth: 1 });
  }
  return { clusters, opinions, opinionsCited };
}
