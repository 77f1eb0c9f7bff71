import { COLLECTIONS, type Collection, collectionOfKey } from '#law/collections.ts';
import { deriveSpans } from '#law/history.ts';
import type { Corpus, SectionVersion } from '#law/model.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import { localDateOf } from '#shared/dates.ts';
import { contentHash } from '#shared/hash.ts';
import type { AuditFinding, AuditRun, CheckStatus, OpsStore, StoredAuditRun } from './ports.ts';

/** The checks every collection gets; the search-index check runs once over the whole store. */
export const CHECKS = [
  'non-empty-bodies',
  'attribution',
  'interval-validity',
  'no-overlaps',
  'gaps-explained',
  'content-hash',
  'size-outliers',
  'history-matches-versions',
  'provenance-complete',
  'sections-skipped',
] as const;
type CheckName = (typeof CHECKS)[number] | 'search-index-in-sync';

/** Bodies shorter than this for an active section are suspicious stubs; longer than OUTLIER_FACTOR × the median, outliers. */
const STUB_CHARS = 40;
const OUTLIER_FACTOR = 50;
/** Problems named in a finding's detail; the rest are counted. */
const SAMPLE_PROBLEMS = 10;

interface ScopeStats {
  scope: string;
  jurisdiction: string;
  rows: number;
  chars: number[];
  problems: Map<CheckName, { count: number; sample: string[] }>;
  unexplainedEmpty: number;
  misattributed: number;
}

interface Interval {
  from: string;
  to: string;
}

export interface AuditDeps {
  versions: VersionStore;
  search: SearchIndex;
  ops: OpsStore;
  now: () => Date;
}

/** Audit the stored data (not the law): one run per jurisdiction plus one over everything, each stored. */
export async function runAudit(deps: AuditDeps, trigger: AuditRun['trigger']): Promise<StoredAuditRun[]> {
  const ranAt = deps.now().toISOString();
  const scopes = new Map<string, ScopeStats>();
  const intervals = new Map<string, { scope: ScopeStats; list: Interval[] }>();
  let versionCount = 0;

  /** A collection's stats, created on first use. */
  const scopeNamed = (name: string, jurisdiction: string): ScopeStats => {
    let s = scopes.get(name);
    if (!s) {
      s = { scope: name, jurisdiction, rows: 0, chars: [], problems: new Map(), unexplainedEmpty: 0, misattributed: 0 };
      scopes.set(name, s);
    }
    return s;
  };
  /** The stats of the collection owning a key; created on first use (also for a collection left with histories only). */
  const scopeOf = (jurisdiction: string, corpus: Corpus, key: string): ScopeStats =>
    scopeNamed(`${jurisdiction}/${corpus}/${collectionOfKey(jurisdiction, corpus, key)?.id ?? 'unknown-collection'}`, jurisdiction);
  const scopeOfCollection = (c: Collection): ScopeStats => scopeNamed(`${c.jurisdiction}/${c.corpus}/${c.id}`, c.jurisdiction);
  const scopeFor = (v: SectionVersion): ScopeStats => scopeOf(v.citation.jurisdiction, v.citation.corpus, v.citation.key);
  const flag = (s: ScopeStats, check: CheckName, what: string) => {
    const problems = s.problems.get(check) ?? { count: 0, sample: [] };
    if (problems.count++ < SAMPLE_PROBLEMS) problems.sample.push(what);
    s.problems.set(check, problems);
  };

  for await (const v of deps.versions.scanVersions()) {
    versionCount++;
    const s = scopeFor(v);
    const id = `${v.citation.key}@${localDateOf(v.validFrom)}`;
    s.rows++;
    s.chars.push(v.bodyText.length);
    if (v.status === 'active' && v.bodyText.trim() === '') {
      s.unexplainedEmpty++;
      flag(s, 'non-empty-bodies', id);
    }
    const owner = collectionOfKey(v.citation.jurisdiction, v.citation.corpus, v.citation.key);
    if (!owner || owner.display(v.citation.key) !== v.citation.display) {
      s.misattributed++;
      flag(s, 'attribution', id);
    }
    if (localDateOf(v.validTo) <= localDateOf(v.validFrom)) flag(s, 'interval-validity', id);
    if (v.provenance.contentHash !== contentHash(v.bodyText)) flag(s, 'content-hash', id);
    // A short text the service's note explains (the source marks the section "Not Funded") is no stub.
    if (v.status === 'active' && v.bodyText.length > 0 && v.bodyText.length < STUB_CHARS && !v.note)
      flag(s, 'size-outliers', `${id} (${v.bodyText.length} chars)`);
    const p = v.provenance;
    if (!p.sourceUrl || !p.retrievedAt || !p.versionLabel || !p.sourceSystem) flag(s, 'provenance-complete', id);

    const keyId = `${v.citation.jurisdiction}#${v.citation.corpus}#${v.citation.key}`;
    const entry = intervals.get(keyId) ?? { scope: s, list: [] };
    entry.list.push({ from: localDateOf(v.validFrom), to: localDateOf(v.validTo) });
    intervals.set(keyId, entry);
  }

  for (const s of scopes.values()) {
    const sorted = [...s.chars].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    const huge = s.chars.filter((n) => median > 0 && n > median * OUTLIER_FACTOR).length;
    if (huge) flag(s, 'size-outliers', `${huge} bodies over ${OUTLIER_FACTOR}× the median of ${median} chars`);
  }

  const explainedGaps = new Map<string, Set<string>>();
  const derived = new Map<string, Interval[]>();
  for await (const h of deps.versions.scanHistories()) {
    const keyId = `${h.jurisdiction}#${h.corpus}#${h.key}`;
    // A gap is explained by an edition that lacks the key, or by the end of an edition's horizon (history.ts).
    const explained = h.observations.flatMap((o) => [...(o.identity === null ? [o.date] : []), ...(o.horizon ? [o.horizon.until] : [])]);
    explainedGaps.set(keyId, new Set(explained));
    derived.set(
      keyId,
      deriveSpans(h.observations).map((sp) => ({ from: sp.from, to: sp.to ?? '9999-12-31' })),
    );
  }

  for (const [keyId, { scope, list }] of intervals) {
    list.sort((a, b) => (a.from < b.from ? -1 : 1));
    const key = keyId.split('#')[2];
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      const cur = list[i]!;
      if (cur.from < prev.to) flag(scope, 'no-overlaps', `${key} ${prev.from}–${prev.to} overlaps ${cur.from}`);
      else if (cur.from > prev.to && !explainedGaps.get(keyId)?.has(prev.to))
        flag(scope, 'gaps-explained', `${key} ${prev.to}–${cur.from}`);
    }
    const expected = derived.get(keyId);
    const same = expected && expected.length === list.length && expected.every((e, i) => e.from === list[i]!.from && e.to === list[i]!.to);
    if (!same) flag(scope, 'history-matches-versions', `${key}: ${mismatch(list, expected ?? [])}`);
  }
  for (const [keyId, expected] of derived) {
    if (expected.length && !intervals.has(keyId)) {
      // Reported even when the collection has no version left at all (its scope is created here then).
      const [j, corpus, key] = keyId.split('#') as [string, Corpus, string];
      flag(scopeOf(j, corpus, key), 'history-matches-versions', `${key}: history implies ${expected.length} versions, none stored`);
    }
  }

  // Sections an ingest could not read: named on each edition record (the latest ingest of an edition replaces it).
  for (const c of COLLECTIONS) {
    for (const e of await deps.versions.listEditions(c.id)) {
      if (!e.skipped?.count) continue;
      const sample = e.skipped.sample.map((x) => `${x.where} (${x.reason}: ${x.detail})`).join(', ');
      flag(
        scopeOfCollection(c),
        'sections-skipped',
        `${e.label} (${e.date}) skipped ${e.skipped.count} section(s) of ${e.source}: ${sample}`,
      );
    }
  }

  const indexed = await deps.search.count();
  const searchFinding =
    indexed === versionCount
      ? null
      : finding(
          'search',
          'search-index-in-sync',
          'warn',
          `search index holds ${indexed} documents for ${versionCount} versions; run \`asof reindex\``,
          versionCount,
          [],
          0,
          0,
        );

  const findingsOf = (s: ScopeStats): AuditFinding[] =>
    CHECKS.flatMap((check) => {
      const problems = s.problems.get(check);
      if (!problems) return [];
      const status: CheckStatus = check === 'gaps-explained' || check === 'size-outliers' || check === 'sections-skipped' ? 'warn' : 'fail';
      const detail = `${problems.count} problem(s): ${problems.sample.join('; ')}${problems.count > SAMPLE_PROBLEMS ? '; …' : ''}`;
      return [finding(s.scope, check, status, detail, s.rows, s.chars, s.unexplainedEmpty, s.misattributed)];
    });

  const jurisdictions = [...new Set([...scopes.values()].map((s) => s.jurisdiction))].sort();
  const runs: StoredAuditRun[] = [];
  for (const j of [...jurisdictions, 'all']) {
    const inScope = [...scopes.values()].filter((s) => j === 'all' || s.jurisdiction === j);
    const findings = inScope.flatMap(findingsOf);
    if (j === 'all' && searchFinding) findings.push(searchFinding);
    const totalChecks = inScope.length * CHECKS.length + (j === 'all' ? 1 : 0);
    const warned = findings.filter((f) => f.status === 'warn').length;
    const failed = findings.filter((f) => f.status === 'fail').length;
    const stored: StoredAuditRun = {
      run: { ranAt, jurisdiction: j, trigger, totalChecks, passed: totalChecks - warned - failed, warned, failed },
      findings,
    };
    await deps.ops.putAuditRun(stored);
    runs.push(stored);
  }
  return runs;
}

/** How stored intervals differ from those a history implies: the counts, and the first pair that differs. */
function mismatch(stored: readonly Interval[], implied: readonly Interval[]): string {
  const show = (x: Interval | undefined) => (x ? `${x.from}–${x.to}` : 'none');
  let i = 0;
  while (i < stored.length && i < implied.length && stored[i]!.from === implied[i]!.from && stored[i]!.to === implied[i]!.to) i++;
  return `stored ${stored.length} versions, history implies ${implied.length}; first difference: stored ${show(stored[i])}, history ${show(implied[i])}`;
}

function finding(
  scope: string,
  check: CheckName,
  status: CheckStatus,
  detail: string,
  rows: number,
  chars: number[],
  unexplainedEmpty: number,
  misattributed: number,
): AuditFinding {
  return {
    scope,
    checkName: check,
    status,
    detail,
    rows,
    avgChars: chars.length ? Math.round(chars.reduce((a, b) => a + b, 0) / chars.length) : null,
    // Not Math.max(...chars): a collection's hundreds of thousands of arguments overflow the stack.
    maxChars: chars.length ? chars.reduce((a, b) => Math.max(b, a)) : null,
    unexplainedEmpty: unexplainedEmpty,
    misattributed,
  };
}
