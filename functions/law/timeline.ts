/**
 * A section through time: every version on file with the gaps between them, and the difference between the versions
 * in force on two dates. The citation is read and a miss explained exactly as a lookup does (lookup.ts).
 */
import { localDateOf } from '#shared/dates.ts';
import { AppError } from '#shared/errors.ts';
import { DIFF_BUDGET, type DiffBudget, diffTextPaced, type TextDiff } from './diff.ts';
import { notInForceError, type ResolvedSection, type ResolveParams, resolveSection } from './lookup.ts';
import type { Citation, SectionVersion, VersionSummary } from './model.ts';
import type { VersionStore } from './ports.ts';

/** One stretch of a section's timeline: a version, or a time between two versions when none is on file. */
export type TimelineEntry =
  | { kind: 'version'; version: VersionSummary }
  /** [validFrom, validTo): from the end of one version until the start of the next, nothing is on file under the key. */
  | { kind: 'gap'; validFrom: string; validTo: string };

export interface SectionTimeline {
  citation: Citation;
  /** Oldest first; a gap stands between two versions whenever the first ends (local date) before the next begins. */
  entries: TimelineEntry[];
  /** The end of the last version when the section is no longer in force on file (deleted, or not shown since); else null. */
  endedAt: string | null;
}

/** Every version on file of the cited section, with its gaps; the lookup's 404s when the key has none. */
export async function listVersions(
  store: VersionStore,
  params: ResolveParams & {
    /** The date the suggestions of a miss are read for (the lookup's `asOf`): today, UTC. */
    today: string;
  },
): Promise<SectionTimeline> {
  const section = await resolveSection(store, params);
  const versions = await store.listVersions(section.ref);
  if (versions.length === 0) throw await notInForceError(store, section, versions, params.today, params.coverageUrl);
  return { citation: versions.at(-1)!.citation, entries: withGaps(versions), endedAt: endOf(versions.at(-1)!) };
}

export function withGaps(versions: readonly VersionSummary[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  versions.forEach((version, i) => {
    const prev = versions[i - 1];
    if (prev && localDateOf(prev.validTo) < localDateOf(version.validFrom)) {
      entries.push({ kind: 'gap', validFrom: prev.validTo, validTo: version.validFrom });
    }
    entries.push({ kind: 'version', version });
  });
  return entries;
}

const endOf = (v: VersionSummary): string | null => (v.validTo.startsWith('9999') ? null : v.validTo);

export interface DiffParams extends ResolveParams {
  /** YYYY-MM-DD, validated. */
  from: string;
  to: string;
}

export interface VersionDiff extends TextDiff {
  citation: Citation;
  from: { date: string; version: SectionVersion };
  to: { date: string; version: SectionVersion };
  /** The same version is in force on both dates (the edit script then keeps the whole text). */
  identical: boolean;
}

/**
 * The versions in force on `from` and on `to` and the difference between their texts, or the lookup's 404 for the
 * first date on which nothing is in force (`error.fields` names the parameter(s), the message the date(s)).
 */
export async function diffVersions(store: VersionStore, params: DiffParams, budget: DiffBudget = DIFF_BUDGET): Promise<VersionDiff> {
  const section = await resolveSection(store, params);
  const [older, newer] = await Promise.all([store.findInForce(section.ref, params.from), store.findInForce(section.ref, params.to)]);
  if (!older || !newer) throw await missOn(store, section, params, { from: older, to: newer });
  const identical = older.validFrom === newer.validFrom;
  const name = (v: SectionVersion) => `${v.citation.jurisdiction}/${v.citation.corpus}/${v.citation.key}@${localDateOf(v.validFrom)}`;
  return {
    citation: newer.citation,
    from: { date: params.from, version: older },
    to: { date: params.to, version: newer },
    identical,
    ...(await diffTextPaced(older.bodyText, newer.bodyText, { from: name(older), to: name(newer) }, budget)),
  };
}

async function missOn(
  store: VersionStore,
  section: ResolvedSection,
  params: DiffParams,
  found: Record<'from' | 'to', SectionVersion | null>,
): Promise<AppError> {
  const fields = (['from', 'to'] as const).filter((f) => found[f] === null);
  const first = fields[0]!;
  const inner = await notInForceError(store, section, await store.listVersions(section.ref), params[first], params.coverageUrl);
  const which = fields.length === 2 ? `either date (from=${params.from}, to=${params.to})` : `${first}=${params[first]}`;
  return new AppError(inner.code, `Nothing is in force on ${which}: ${inner.message}`, { ...inner.details, fields });
}
