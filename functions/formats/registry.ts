import { collectionOfKey } from '#law/collections.ts';
import { type Corpus, refId, type SectionRef } from '#law/model.ts';
import type { VersionStore } from '#law/ports.ts';
import { localDateOf } from '#shared/dates.ts';
import { AppError } from '#shared/errors.ts';
import { sha256Hex } from '#shared/hash.ts';
import { type AuthoredFile, parseRecordFiles, type RecordProblem } from './authored.ts';
import { type BasisEntry, type FormatRecordSource, LEVELS, type Level, type StoredFormatRecord, VALUE_FIELDS } from './model.ts';
import type { FormatStore } from './ports.ts';
import { validateRecord } from './validate.ts';

export interface FormatDeps {
  versions: VersionStore;
  formats: FormatStore;
  now: () => Date;
}

export interface LoadReport {
  loaded: { id: string; file: string; unchanged: boolean }[];
  /** Records refused, with every problem found; a refused record is not served (an older copy is removed). */
  refused: RecordProblem[];
}

const digestOf = (record: FormatRecordSource) => sha256Hex(JSON.stringify(record));

export interface RecordCheck {
  id: string | null;
  file: string;
  /** Passed validation; `problems` is empty then. */
  valid: boolean;
  problems: RecordProblem[];
  /** Whether the store holds this record as it is in the file (null when invalid). */
  loaded: boolean | null;
  stale: boolean | null;
  staleDetail: string | null;
}

/** The version reads of one validation, each made once: the courts of appeals' records pin the same FRAP versions. */
function readOnce(store: VersionStore): Pick<VersionStore, 'listVersions' | 'getVersion'> {
  const lists = new Map<string, ReturnType<VersionStore['listVersions']>>();
  const versions = new Map<string, ReturnType<VersionStore['getVersion']>>();
  const once = <T>(map: Map<string, T>, id: string, read: () => T): T => {
    let found = map.get(id);
    if (found === undefined) {
      found = read();
      map.set(id, found);
    }
    return found;
  };
  return {
    listVersions: (ref) => once(lists, refId(ref), () => store.listVersions(ref)),
    getVersion: (ref, validFrom) => once(versions, `${refId(ref)}#${validFrom}`, () => store.getVersion(ref, validFrom)),
  };
}

/** Parses and validates the authored files against the corpus; each valid record ready to store. */
async function validateFiles(deps: FormatDeps, files: readonly AuthoredFile[]) {
  const { records, problems } = parseRecordFiles(files);
  const valid: StoredFormatRecord[] = [];
  const versions = readOnce(deps.versions);
  // Side by side: each record waits on its own version reads, and the reads they share are made once (readOnce).
  const checks = await Promise.all(records.map(({ file, record }) => validateRecord(versions, file, record)));
  records.forEach(({ file, record }, i) => {
    const checked = checks[i]!;
    if (checked.ok) valid.push({ record, file, digest: digestOf(record), loadedAt: deps.now().toISOString(), pinned: checked.pinned });
    else problems.push(...checked.problems);
  });
  return { valid, problems };
}

const sameAs = (a: StoredFormatRecord, b: StoredFormatRecord | undefined) =>
  b !== undefined && a.digest === b.digest && JSON.stringify(a.pinned) === JSON.stringify(b.pinned);

/** Validates the authored records against the corpus and stores those that pass; the store then holds exactly them. */
export async function loadFormatRecords(deps: FormatDeps, files: readonly AuthoredFile[]): Promise<LoadReport> {
  const [{ valid, problems }, stored] = await Promise.all([validateFiles(deps, files), deps.formats.listRecords()]);
  const existing = new Map(stored.map((s) => [s.record.id, s]));
  const report: LoadReport = { loaded: [], refused: problems };
  for (const stored of valid) {
    const unchanged = sameAs(stored, existing.get(stored.record.id));
    if (!unchanged) await deps.formats.putRecord(stored);
    report.loaded.push({ id: stored.record.id, file: stored.file, unchanged });
  }
  const kept = new Set(valid.map((s) => s.record.id));
  for (const id of existing.keys()) if (!kept.has(id)) await deps.formats.deleteRecord(id);
  return report;
}

/** `asof formats check`: each file's validation status and, for a valid record, whether it is loaded and stale today. Writes nothing. */
export async function checkFormatRecords(deps: FormatDeps, files: readonly AuthoredFile[]): Promise<RecordCheck[]> {
  const { valid, problems } = await validateFiles(deps, files);
  const existing = new Map((await deps.formats.listRecords()).map((s) => [s.record.id, s]));
  const today = localDateOf(deps.now().toISOString());
  const inForce = await inForceHashes(deps.versions, valid, today);
  const checks: RecordCheck[] = valid.map((stored) => {
    const shown = present(stored, inForce, today);
    return {
      id: stored.record.id,
      file: stored.file,
      valid: true,
      problems: [],
      loaded: sameAs(stored, existing.get(stored.record.id)),
      stale: shown.stale,
      staleDetail: shown.staleDetail,
    };
  });
  const refusedFiles = [...new Set(problems.map((p) => p.file))];
  for (const file of refusedFiles) {
    checks.push({
      id: null,
      file,
      valid: false,
      problems: problems.filter((p) => p.file === file),
      loaded: null,
      stale: null,
      staleDetail: null,
    });
  }
  return checks.sort((a, b) => a.file.localeCompare(b.file));
}

export interface FormatFilter {
  jurisdiction: string;
  level?: Level;
  court?: string;
  /** The records in force on this date (YYYY-MM-DD); default today (UTC). */
  asOf?: string;
}

export interface RuleEntry {
  key: string;
  corpus: Corpus;
  citationKey: string;
  display: string;
  effectiveFrom: string;
  sourceUrl: string;
  note: string | null;
  ref: SectionRef;
  changedSincePinned: boolean;
}

/** A record as the format endpoint answers it, less the permalinks (the HTTP layer knows the site). */
export type FormatResult = Omit<FormatRecordSource, 'rules' | 'basis'> & {
  ruleKeys: string[];
  rulePins: Record<string, string>;
  basis: Record<string, string>;
  stale: boolean;
  staleDetail: string | null;
  loadedAt: string;
  rules: RuleEntry[];
};

const levelRank = (level: Level) => LEVELS.indexOf(level);
const byCourtOrder = (a: StoredFormatRecord, b: StoredFormatRecord) =>
  levelRank(a.record.level) - levelRank(b.record.level) ||
  a.record.court.localeCompare(b.record.court, 'en', { numeric: true }) ||
  a.record.effectiveFrom.localeCompare(b.record.effectiveFrom);

const displayOf = (jurisdiction: string, corpus: Corpus, key: string) => collectionOfKey(jurisdiction, corpus, key)?.display(key) ?? key;

function renderBasis(record: FormatRecordSource, entry: BasisEntry): string {
  const corpusOf = new Map(record.rules.map((r) => [r.key, r.corpus]));
  const quotes = entry.quotes.map((q) => `${displayOf(record.jurisdiction, corpusOf.get(q.ruleKey) ?? 'rules', q.ruleKey)}: “${q.quote}”`);
  return [entry.reading, quotes.join(' … ')].filter(Boolean).join(' ');
}

/** In-force state of each cited rule, read once per distinct rule however many records cite it. */
/** A cited rule's version in force today (null: none), keyed by refId. */
type InForce = Map<string, { hash: string; label: string; from: string } | null>;

async function inForceHashes(store: VersionStore, records: readonly StoredFormatRecord[], today: string): Promise<InForce> {
  const refs = new Map<string, SectionRef>();
  for (const { record } of records)
    for (const r of record.rules) {
      const ref = { jurisdiction: record.jurisdiction, corpus: r.corpus, key: r.key };
      refs.set(refId(ref), ref);
    }
  const out: InForce = new Map();
  await Promise.all(
    [...refs].map(async ([id, ref]) => {
      const v = await store.findInForce(ref, today);
      out.set(id, v && { hash: v.provenance.contentHash, label: v.provenance.versionLabel, from: localDateOf(v.validFrom) });
    }),
  );
  return out;
}

function describeFilter(f: FormatFilter): string {
  return [f.level && `level '${f.level}'`, f.court && `court '${f.court}'`].filter(Boolean).join(' and ');
}

/** The records for a jurisdiction (optionally one level or court), highest court first, with staleness as of today. */
export async function listFormats(deps: FormatDeps, filter: FormatFilter): Promise<FormatResult[]> {
  const all = await deps.formats.listRecords();
  const ofJurisdiction = all.filter((s) => s.record.jurisdiction === filter.jurisdiction).sort(byCourtOrder);
  if (!ofJurisdiction.length) {
    const held = [...new Set(all.map((s) => s.record.jurisdiction))].sort();
    throw new AppError(
      'not_carried',
      `No filing-format record is held for jurisdiction '${filter.jurisdiction}'.${held.length ? ` Records are held for: ${held.join(', ')}.` : ''}`,
    );
  }
  const matching = ofJurisdiction.filter(
    (s) => (!filter.level || s.record.level === filter.level) && (!filter.court || s.record.court === filter.court),
  );
  const today = localDateOf(deps.now().toISOString());
  const asOf = filter.asOf ?? today;
  if (!matching.length) {
    throw new AppError(
      'not_carried',
      `No filing-format record for ${filter.jurisdiction} matches ${describeFilter(filter)}. ${describeIds(filter.jurisdiction, ofJurisdiction, asOf)}.`,
    );
  }
  const inPeriod = matching.filter((s) => coversDate(s.record, asOf));
  if (!inPeriod.length) {
    const filtered = filter.level || filter.court ? ` matching ${describeFilter(filter)}` : '';
    throw new AppError(
      'not_carried',
      `No filing-format record for ${filter.jurisdiction}${filtered} is in force on ${asOf}: no reading of the rules on file covers that date. ` +
        `The records${filtered} cover ${describePeriods(matching)}.`,
    );
  }
  const inForce = await inForceHashes(
    deps.versions,
    inPeriod.filter((s) => s.record.effectiveUntil === null),
    today,
  );
  return inPeriod.map((stored) => present(stored, inForce, today));
}

/**
 * The ids of the records in force on `date`, literally, each level's named once after its ids
 * (`ca1-2024-12-01, …, cafc-2024-12-01 (intermediate-appellate)`); none in force, the periods the records cover.
 * Only one date's: every period's ids would pass the length a message may have.
 */
function describeIds(jurisdiction: string, records: readonly StoredFormatRecord[], date: string): string {
  const inForce = records.filter((s) => coversDate(s.record, date));
  if (!inForce.length) return `None of the records for ${jurisdiction} is in force on ${date}; they cover ${describePeriods(records)}`;
  const byLevel = new Map<Level, string[]>();
  for (const { record } of inForce) byLevel.set(record.level, [...(byLevel.get(record.level) ?? []), record.id]);
  const ids = [...byLevel].map(([level, list]) => `${list.join(', ')} (${level})`).join('; ');
  return `The records for ${jurisdiction} in force on ${date}: ${ids}`;
}

/** Is `date` within the record's period [effectiveFrom, effectiveUntil)? */
const coversDate = (r: FormatRecordSource, date: string): boolean =>
  r.effectiveFrom <= date && (r.effectiveUntil === null || date < r.effectiveUntil);

function describePeriods(records: readonly StoredFormatRecord[]): string {
  const counts = new Map<string, number>();
  for (const { record } of records) {
    const period =
      record.effectiveUntil === null ? `${record.effectiveFrom} onward` : `${record.effectiveFrom} to ${record.effectiveUntil}`;
    counts.set(period, (counts.get(period) ?? 0) + 1);
  }
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([period, n]) => `${period} (${n} record${n === 1 ? '' : 's'})`)
    .join(', ');
}

/**
 * A record as answered. Only a current record (open period) can be stale: a dated record's pinned texts were checked
 * to be in force over its whole period when it was loaded, and a later text is another period's.
 */
function present(stored: StoredFormatRecord, inForce: InForce, today: string): FormatResult {
  const { record } = stored;
  const current = record.effectiveUntil === null;
  const stale: string[] = [];
  const rules: RuleEntry[] = record.rules.map((r) => {
    const ref = { jurisdiction: record.jurisdiction, corpus: r.corpus, key: r.key };
    const display = displayOf(record.jurisdiction, r.corpus, r.key);
    const now = inForce.get(refId(ref)) ?? null;
    const changed = current && now !== null && now.hash !== r.pin;
    if (current && now === null) stale.push(`no version of ${display} is in force on ${today}`);
    else if (changed)
      stale.push(
        `${display} in force on ${today} (${now.label}, from ${now.from}) no longer matches the text this record was read from (${r.pin})`,
      );
    const pinned = stored.pinned[r.key]!;
    return {
      key: r.key,
      corpus: r.corpus,
      citationKey: display,
      display,
      effectiveFrom: localDateOf(pinned.validFrom),
      sourceUrl: pinned.sourceUrl,
      note: r.note,
      ref,
      changedSincePinned: changed,
    };
  });
  const basis: Record<string, string> = {};
  for (const field of [...VALUE_FIELDS, 'effectiveFrom', 'effectiveUntil'] as const) {
    const entry = record.basis[field];
    if (entry) basis[field] = renderBasis(record, entry);
  }
  const r = record;
  // The spec's field order, so that a record reads top-down as the table describes it.
  return {
    id: r.id,
    jurisdiction: r.jurisdiction,
    court: r.court,
    courtName: r.courtName,
    level: r.level,
    coverage: r.coverage,
    ruleKeys: r.rules.map((c) => c.key),
    rulePins: Object.fromEntries(r.rules.map((c) => [c.key, c.pin])),
    governingRuleKey: r.governingRuleKey,
    typeface: r.typeface,
    minSizePt: r.minSizePt,
    maxSizePt: r.maxSizePt,
    footnoteMinSizePt: r.footnoteMinSizePt,
    lineSpacing: r.lineSpacing,
    margins: r.margins,
    paperSize: r.paperSize,
    limits: r.limits,
    certificateOfCompliance: r.certificateOfCompliance,
    effectiveFrom: r.effectiveFrom,
    effectiveUntil: r.effectiveUntil,
    basis,
    note: r.note,
    unresolved: r.unresolved,
    stale: stale.length > 0,
    staleDetail: stale.length ? `${stale.join('; ')}.` : null,
    loadedAt: stored.loadedAt,
    rules,
  };
}

export const FORMAT_DISCLAIMER =
  'A filing-format record is a reading of the rules, not the rules. Verify each rule with the lookup endpoint (rules[].citationKey) before certifying compliance; local rules and orders the corpus does not carry may differ (see unresolved).';

export const FORMAT_NOTE =
  'The records in force on asOf (default today, UTC), highest court first; each names the period it covers (effectiveFrom, and effectiveUntil, null while it is the current reading), over which the rule texts it was read from were in force. Every value is tied to the rule text it was read from (basis, limits[].quote, typeface.faceMinimums[].quote); a value the carried rules do not settle is null and named in unresolved. stale (current records only) is true when a cited rule’s text in force today no longer matches the version the record was read from (rulePins), or when none is in force.';
