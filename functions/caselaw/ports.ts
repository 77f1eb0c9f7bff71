/**
 * The case-law replica: CourtListener's bulk-data tables (courts, dockets, opinion clusters, citations, opinions,
 * opinions cited). Aurora PostgreSQL in AWS, PGlite locally, a PostgreSQL server in CI: one SQL adapter.
 */

/** A reporter citation of a cluster, in CourtListener's form (`type`: 1 federal, 2 state, 3 state regional, 4 specialty, 5 early SCOTUS, 6 Lexis, 7 West, 8 neutral). */
export interface CitationRow {
  volume: string;
  reporter: string;
  page: string;
  type: number;
}

export interface CourtRow {
  id: string;
  fullName: string;
  shortName: string;
  citationString: string;
  jurisdiction: string;
  position: number | null;
  startDate: string | null;
  endDate: string | null;
  inUse: boolean;
  url: string;
}

export interface DocketRow {
  id: number;
  courtId: string | null;
  caseName: string;
  docketNumber: string;
  slug: string;
}

export interface ClusterRow {
  id: number;
  docketId: number | null;
  caseName: string;
  caseNameFull: string;
  caseNameShort: string;
  /** YYYY-MM-DD, or null when the source gives none. */
  dateFiled: string | null;
  slug: string;
  precedentialStatus: string;
  citationCount: number;
  judges: string;
  /** The court, when the source gives it (through the docket in CourtListener; kept here so a cluster without a docket can still say). */
  courtId: string | null;
}

export interface OpinionRow {
  id: number;
  clusterId: number;
  type: string;
  authorStr: string;
  downloadUrl: string;
}

export interface OpinionCitedRow {
  citingOpinionId: number;
  citedOpinionId: number;
  /** How many times the citing opinion cites the cited one. */
  depth: number;
}

/** A cluster as the API shows it: the row, its court's citation string, its citations. */
export interface ClusterRecord extends ClusterRow {
  courtCitationString: string;
  citations: CitationRow[];
}

export interface CitingCase {
  cluster: ClusterRecord;
  /** Summed over the citing cluster's opinions and the cited cluster's opinions, as CourtListener does. */
  depth: number;
}

/** Where the citing-cases listing continues: after this (citation count, id) in most-cited-first order. */
export interface CitedByCursor {
  citationCount: number;
  id: number;
}

export interface ReplicaBatch {
  courts?: CourtRow[];
  dockets?: DocketRow[];
  clusters?: ClusterRow[];
  citations?: Array<CitationRow & { clusterId: number }>;
  opinions?: OpinionRow[];
  opinionsCited?: OpinionCitedRow[];
}

export interface CaseLawStore {
  /** Cluster ids per citation form (`volume reporter page`, reporter as stored), for every form asked that matches. */
  clustersByCitation(forms: ReadonlyArray<{ volume: string; reporter: string; page: string }>): Promise<Map<string, number[]>>;
  clusters(ids: readonly number[]): Promise<ClusterRecord[]>;
  citedByCount(id: number): Promise<number>;
  citedBy(id: number, limit: number, after: CitedByCursor | null): Promise<CitingCase[]>;
  /** Courts whose citation string a parenthetical may name (for ranking candidates). */
  courts(): Promise<Array<Pick<CourtRow, 'id' | 'citationString'>>>;
  /** The date the replica's data is current to (the newest source loaded), or null when nothing is loaded. */
  dataAsOf(): Promise<string | null>;
  /** Upserts by primary key, in dependency order, each table in one statement per chunk: re-running a load changes nothing. */
  write(batch: ReplicaBatch): Promise<void>;
  setDataAsOf(date: string): Promise<void>;
  ping(): Promise<void>;
}

/** `volume reporter page`: the key of a citation form. */
export const formKey = (c: { volume: string; reporter: string; page: string }): string => `${c.volume} ${c.reporter} ${c.page}`;
