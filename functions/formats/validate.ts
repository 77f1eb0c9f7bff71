import { collectionOfKey } from '#law/collections.ts';
import type { SectionRef, VersionSummary } from '#law/model.ts';
import type { VersionStore } from '#law/ports.ts';
import { localDateOf } from '#shared/dates.ts';
import type { RecordProblem } from './authored.ts';
import { type FormatRecordSource, type StoredFormatRecord, VALUE_FIELDS } from './model.ts';

/** Whitespace-normalised text: quotes are compared with rule text this way (line breaks and runs of spaces are one space). */
const squashSpace = (text: string): string => text.normalize('NFC').replace(/\s+/g, ' ').trim();

interface QuoteSite {
  field: string;
  ruleKey: string;
  quote: string;
}

function quoteSites(r: FormatRecordSource): QuoteSite[] {
  const sites: QuoteSite[] = [];
  for (const [field, entry] of Object.entries(r.basis)) {
    for (const [i, q] of (entry?.quotes ?? []).entries()) sites.push({ field: `basis.${field}.quotes[${i}]`, ...q });
  }
  for (const [i, l] of r.limits.entries()) sites.push({ field: `limits[${i}].quote`, ruleKey: l.ruleKey, quote: l.quote });
  for (const [i, f] of (r.typeface?.faceMinimums ?? []).entries()) {
    sites.push({ field: `typeface.faceMinimums[${i}].quote`, ruleKey: f.ruleKey, quote: f.quote });
  }
  const cert = r.certificateOfCompliance;
  if (cert?.quote) sites.push({ field: 'certificateOfCompliance.quote', ruleKey: cert.ruleKey ?? '', quote: cert.quote });
  return sites;
}

/** What the record asserts about itself, before any rule text is read. */
function shapeProblems(r: FormatRecordSource): Omit<RecordProblem, 'file'>[] {
  const out: Omit<RecordProblem, 'file'>[] = [];
  const cited = new Set(r.rules.map((c) => c.key));
  if (!cited.has(r.governingRuleKey))
    out.push({ field: 'governingRuleKey', message: `'${r.governingRuleKey}' is not among the record's rules` });
  const cert = r.certificateOfCompliance;
  if (cert?.required && (!cert.ruleKey || !cert.quote)) {
    out.push({
      field: 'certificateOfCompliance',
      message: 'a required certificate names the rule (ruleKey) and the words that require it (quote)',
    });
  }
  for (const field of VALUE_FIELDS) {
    const value = r[field];
    const entry = r.basis[field];
    if (value !== null && !entry?.quotes.length)
      out.push({ field: `basis.${field}`, message: `${field} has a value but no quote it was read from` });
    if (value === null && !entry?.reading)
      out.push({ field: `basis.${field}`, message: `${field} is null: say why in basis.${field}.reading (and name a gap in unresolved)` });
  }
  if (r.effectiveUntil !== null && r.effectiveUntil <= r.effectiveFrom) {
    out.push({ field: 'effectiveUntil', message: `the period ends (${r.effectiveUntil}) on or before it starts (${r.effectiveFrom})` });
  }
  if (r.coverage === 'specified' && r.typeface === null) {
    out.push({
      field: 'typeface',
      message: "coverage 'specified' needs the typeface the rules set; a court without one is 'no-statewide-typography-rule'",
    });
  }
  return out;
}

const hashList = (versions: VersionSummary[]) => versions.map((v) => `${v.versionLabel}: ${v.contentHash}`).join('; ');
const spanOf = (v: VersionSummary) => `${localDateOf(v.validFrom)}–${v.validTo.startsWith('9999') ? 'open' : localDateOf(v.validTo)}`;
const periodOf = (r: FormatRecordSource) => `${r.effectiveFrom}–${r.effectiveUntil ?? 'open'}`;

/**
 * Is the version in force for the record's whole period? A current record (open period) needs its version in force on
 * the day it starts (a later change of the text makes the record stale, not invalid); a dated record needs it in
 * force from its first day to its last.
 */
const coversPeriod = (v: VersionSummary, r: FormatRecordSource): boolean =>
  localDateOf(v.validFrom) <= r.effectiveFrom &&
  (r.effectiveUntil === null ? r.effectiveFrom < localDateOf(v.validTo) : r.effectiveUntil <= localDateOf(v.validTo));

/**
 * Checks a record against the corpus: every rule key exists, every pin is the contentHash of its version in force over
 * the record's period, and every quote occurs verbatim (after whitespace normalisation) in the pinned version of the
 * rule it cites.
 */
export async function validateRecord(
  store: Pick<VersionStore, 'listVersions' | 'getVersion'>,
  file: string,
  record: FormatRecordSource,
): Promise<{ ok: true; pinned: StoredFormatRecord['pinned'] } | { ok: false; problems: RecordProblem[] }> {
  const problems: RecordProblem[] = shapeProblems(record).map((p) => ({ file, ...p }));
  const texts = new Map<string, string>();
  const found = new Map<string, StoredFormatRecord['pinned'][string]>();

  await Promise.all(
    record.rules.map(async (rule, i) => {
      const collection = collectionOfKey(record.jurisdiction, rule.corpus, rule.key);
      const ref: SectionRef = { jurisdiction: record.jurisdiction, corpus: rule.corpus, key: rule.key };
      const versions = collection ? await store.listVersions(ref) : [];
      if (!versions.length) {
        problems.push({
          file,
          field: `rules[${i}].key`,
          message: `rule '${rule.key}' (${record.jurisdiction}/${rule.corpus}) is not in the corpus`,
          notCarried: `${record.jurisdiction}/${rule.corpus} ${rule.key}`,
        });
        return;
      }
      const pinned = versions.filter((v) => v.contentHash === rule.pin);
      if (!pinned.length) {
        problems.push({
          file,
          field: `rules[${i}].pin`,
          message: `no version of ${versions[0]!.citation.display} has contentHash ${rule.pin} (on file: ${hashList(versions)})`,
        });
        return;
      }
      const match = pinned.find((v) => coversPeriod(v, record));
      if (!match) {
        problems.push({
          file,
          field: `rules[${i}].pin`,
          message: `the version of ${versions[0]!.citation.display} with contentHash ${rule.pin} is in force ${pinned.map(spanOf).join(', ')}, not over the record's period ${periodOf(record)}`,
        });
        return;
      }
      const version = await store.getVersion(ref, match.validFrom);
      if (!version) throw new Error(`${rule.key}: version ${match.validFrom} is listed but cannot be read`);
      texts.set(rule.key, squashSpace(`${version.catchline}\n${version.bodyText}`));
      found.set(rule.key, {
        validFrom: version.validFrom,
        sourceUrl: version.provenance.sourceUrl,
        versionLabel: version.provenance.versionLabel,
      });
    }),
  );

  const cited = new Set(record.rules.map((r) => r.key));
  for (const site of quoteSites(record)) {
    if (!cited.has(site.ruleKey)) {
      problems.push({
        file,
        field: site.field,
        message: `quotes rule '${site.ruleKey}', which is not among the record's rules: "${site.quote}"`,
      });
      continue;
    }
    const text = texts.get(site.ruleKey);
    if (text === undefined) continue; // the rule's own problem is reported above
    if (!text.includes(squashSpace(site.quote))) {
      problems.push({ file, field: site.field, message: `quote not found in the pinned text of '${site.ruleKey}': "${site.quote}"` });
    }
  }
  if (problems.length) return { ok: false, problems };
  // In the record's rule order, so that an unchanged record stores the same item.
  return { ok: true, pinned: Object.fromEntries(record.rules.map((r) => [r.key, found.get(r.key)!])) };
}

/** A record's problems are named `<file>#<record id>` (or `<file>` for the whole file). */
export interface SplitRefusals {
  /** Records refused only because the corpus does not carry rules they read, and those rules. */
  waiting: { records: string[]; rules: string[] };
  /** Every problem of the other records: what an author must fix. */
  refused: RecordProblem[];
}

/**
 * Refusals told apart: a corpus loaded in part (an interrupted first ingest, a deployment without a rule set) refuses
 * every record that reads a rule it lacks, one problem per rule; those records are not at fault and are reported as
 * one count, the others problem by problem.
 */
export function splitRefusals(problems: readonly RecordProblem[]): SplitRefusals {
  const byRecord = new Map<string, RecordProblem[]>();
  for (const p of problems) {
    const its = byRecord.get(p.file) ?? [];
    its.push(p);
    byRecord.set(p.file, its);
  }
  const waiting: SplitRefusals['waiting'] = { records: [], rules: [] };
  const rules = new Set<string>();
  const refused: RecordProblem[] = [];
  for (const [record, its] of byRecord) {
    if (its.some((p) => p.notCarried === undefined)) {
      refused.push(...its);
      continue;
    }
    waiting.records.push(record);
    for (const p of its) rules.add(p.notCarried!);
  }
  waiting.rules = [...rules].sort();
  return { waiting, refused };
}

/** One line for the format records that wait for rules the corpus does not carry yet (splitRefusals). */
export function waitingLine(waiting: SplitRefusals['waiting']): string {
  const { records, rules } = waiting;
  const some = (list: string[]) => `${list.slice(0, 3).join(', ')}${list.length > 3 ? ', …' : ''}`;
  return (
    `${records.length} not loaded until the corpus carries the ${rules.length} rule${rules.length === 1 ? '' : 's'} they read ` +
    `(${some(rules)}; records ${some(records)})`
  );
}
