/** The value sets the spec leaves open, decided in docs/DECISIONS.md (and DESIGN.md §3). */
export const CORPORA = ['statutes', 'rules', 'regulations', 'constitution', 'session-laws', 'ordinances'] as const;
export type Corpus = (typeof CORPORA)[number];

export const SECTION_STATUSES = ['active', 'repealed', 'reserved', 'omitted', 'transferred', 'renumbered', 'expired'] as const;
export type SectionStatus = (typeof SECTION_STATUSES)[number];

export const TEMPORAL_BASES = ['effective-date', 'compiled-edition', 'publication-date', 'retrieval-date'] as const;
export type TemporalBasis = (typeof TEMPORAL_BASES)[number];

export const CADENCE_CLASSES = ['continuous', 'annual', 'edition', 'irregular'] as const;
export type CadenceClass = (typeof CADENCE_CLASSES)[number];

/** An open version's `validTo`. */
export const OPEN_END = '9999-12-31T23:59:59Z';
export const OPEN_END_DATE = '9999-12-31';

export interface Citation {
  jurisdiction: string;
  corpus: Corpus;
  key: string;
  display: string;
  parts: Record<string, string>;
}

export interface Provenance {
  sourceUrl: string;
  retrievedAt: string;
  contentHash: string;
  sourceSystem: string;
  versionLabel: string;
}

/** One stored version of a section: what the VersionStore holds. Permalink and disclaimer are added on the way out. */
export interface SectionVersion {
  citation: Citation;
  catchline: string;
  bodyText: string;
  historyNote: string;
  note: string | null;
  status: SectionStatus;
  /** ISO 8601 with the jurisdiction's offset; half-open interval [validFrom, validTo). */
  validFrom: string;
  validTo: string;
  ingestedAt: string;
  temporalBasis: TemporalBasis;
  provenance: Provenance;
  topics?: string[];
}

/** What a lookup addresses: one key in one corpus of one jurisdiction. */
export interface SectionRef {
  jurisdiction: string;
  corpus: Corpus;
  key: string;
}

export const refId = (ref: SectionRef): string => `${ref.jurisdiction}#${ref.corpus}#${ref.key}`;

/** A version without its texts: for version lists, permalinks and suggestions. */
export interface VersionSummary {
  citation: Citation;
  catchline: string;
  status: SectionStatus;
  validFrom: string;
  validTo: string;
  temporalBasis: TemporalBasis;
  versionLabel: string;
  contentHash: string;
}

type SummaryFields = Pick<SectionVersion, 'citation' | 'catchline' | 'status' | 'validFrom' | 'validTo' | 'temporalBasis'> & {
  provenance: Pick<Provenance, 'versionLabel' | 'contentHash'>;
};

export const summarize = (v: SummaryFields): VersionSummary => ({
  citation: v.citation,
  catchline: v.catchline,
  status: v.status,
  validFrom: v.validFrom,
  validTo: v.validTo,
  temporalBasis: v.temporalBasis,
  versionLabel: v.provenance.versionLabel,
  contentHash: v.provenance.contentHash,
});

export const isCorpus = (value: string): value is Corpus => (CORPORA as readonly string[]).includes(value);
