import { type Corpus, refId, type SectionRef } from '#law/model.ts';

/** The court-statistics vocabulary (DESIGN.md §3); format results are ordered by it, highest court first. */
export const LEVELS = ['last-resort', 'intermediate-appellate', 'general-jurisdiction', 'limited-jurisdiction'] as const;
export type Level = (typeof LEVELS)[number];

export const COVERAGES = ['specified', 'no-statewide-typography-rule'] as const;
export type Coverage = (typeof COVERAGES)[number];

/** The typeface tokens of the spec; otherwise `allowed` is an exhaustive list of named faces. */
export const TYPEFACE_TOKENS = ['any', 'any-conventional', 'any-proportional', 'any-serif', 'court-published-list'] as const;
export type TypefaceToken = (typeof TYPEFACE_TOKENS)[number];

/** Where a rule says it: the rule key and words that occur verbatim (after whitespace normalisation) in its pinned text. */
export interface Quoted {
  ruleKey: string;
  quote: string;
}

/** A minimum (or a density ceiling) that holds for one face or class of faces only. */
export interface FaceMinimum extends Quoted {
  face: string;
  minSizePt: number | null;
  maxCharsPerInch: number | null;
}

export interface Typeface {
  allowed: string[] | TypefaceToken | null;
  prohibited: string[];
  faceMinimums: FaceMinimum[];
  /** A density ceiling that holds for every face, or null. */
  maxCharsPerInch: number | null;
}

export const LIMIT_MEASURES = ['pages', 'words', 'lines'] as const;
export type LimitMeasure = (typeof LIMIT_MEASURES)[number];

/** One length limit: one document, one measure (a rule with "30 pages or 13,000 words" gives two entries). */
export interface LengthLimit extends Quoted {
  document: string;
  /** The measure this entry limits: the number is in the field of that name; the other two are null. */
  basis: LimitMeasure;
  pages: number | null;
  words: number | null;
  lines: number | null;
  note: string | null;
}

export interface CertificateOfCompliance {
  required: boolean;
  ruleKey: string | null;
  contents: string | null;
  /** Which documents need one, when the rule does not ask it of every brief. */
  appliesTo: string | null;
  quote: string | null;
}

/** The fields read from rule text: each non-null one is tied to quotes in `basis`; each null one is explained. */
export const VALUE_FIELDS = [
  'typeface',
  'minSizePt',
  'maxSizePt',
  'footnoteMinSizePt',
  'lineSpacing',
  'margins',
  'paperSize',
  'certificateOfCompliance',
] as const;
export type ValueField = (typeof VALUE_FIELDS)[number];

/** How a record's author explains one field: the quotes it was read from and, where needed, the reading. */
export interface BasisEntry {
  quotes: Quoted[];
  reading: string | null;
}

export interface RuleCitation {
  key: string;
  corpus: Corpus;
  /** contentHash of the version the record was read from. */
  pin: string;
  note: string | null;
}

/** A record as authored in functions/formats/records and checked against the corpus (validate.ts). */
export interface FormatRecordSource {
  id: string;
  jurisdiction: string;
  court: string;
  courtName: string;
  level: Level;
  coverage: Coverage;
  /** The period the record covers, [effectiveFrom, effectiveUntil): the texts it was read from were in force over it. */
  effectiveFrom: string;
  /** Exclusive end of that period; null while the record is the current reading (open, checked for staleness). */
  effectiveUntil: string | null;
  governingRuleKey: string;
  rules: RuleCitation[];
  typeface: Typeface | null;
  minSizePt: number | null;
  maxSizePt: number | null;
  footnoteMinSizePt: number | null;
  lineSpacing: string | null;
  /** Minimum margins in inches, by side (`all`, or `top`, `right`, `bottom`, `left`). */
  margins: Record<string, number> | null;
  paperSize: string | null;
  limits: LengthLimit[];
  certificateOfCompliance: CertificateOfCompliance | null;
  basis: Partial<Record<ValueField | 'effectiveFrom' | 'effectiveUntil', BasisEntry>>;
  note: string;
  unresolved: string[];
}

/** A rule version as a record pins it: `<refId>#<contentHash>` (what tags a version with the topic `format`). */
export const pinnedRow = (ref: SectionRef, contentHash: string): string => `${refId(ref)}#${contentHash}`;

/** The rule versions a record was read from (pinnedRow of each). */
export const pinnedRowsOf = (record: Pick<FormatRecordSource, 'jurisdiction' | 'rules'>): string[] =>
  record.rules.map((r) => pinnedRow({ jurisdiction: record.jurisdiction, corpus: r.corpus, key: r.key }, r.pin));

/** A record that passed validation, as the FormatStore holds it. */
export interface StoredFormatRecord {
  record: FormatRecordSource;
  /** The file it was authored in, for messages. */
  file: string;
  /** sha256 of the record's canonical JSON: a reload of an unchanged file keeps its loadedAt. */
  digest: string;
  loadedAt: string;
  /** The pinned versions' validFrom, sourceUrl and catchline, read when the record was validated. */
  pinned: Record<string, { validFrom: string; sourceUrl: string; versionLabel: string }>;
}
