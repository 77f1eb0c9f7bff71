import type { SiteConfig } from '#app/services.ts';
import { type SectionRef, type SectionVersion, summarize, type VersionSummary } from '#law/model.ts';
import { DISCLAIMER, serviceNote } from '#law/notes.ts';
import { type PinpointAnswer, pinpointNote } from '#law/pinpoint.ts';
import type { SectionTimeline, VersionDiff } from '#law/timeline.ts';
import type { AuditFinding } from '#ops/ports.ts';
import { localDateOf } from '#shared/dates.ts';

/**
 * `{site_url}/law/<jurisdiction>/<corpus>/<key>` (the spec's shape), with `?asOf=` the date a version starts when the
 * answer is about one version: the link then opens that version, not whatever is in force when it is followed.
 */
export const permalinkOf = (site: SiteConfig, ref: SectionRef, asOf?: string): string =>
  `${site.siteUrl}/law/${encodeURIComponent(ref.jurisdiction)}/${encodeURIComponent(ref.corpus)}/${encodeURIComponent(ref.key)}` +
  (asOf === undefined ? '' : `?asOf=${asOf}`);

/** The permalink of the version that starts at `validFrom`. */
export const versionPermalink = (site: SiteConfig, v: { citation: SectionRef; validFrom: string }): string =>
  permalinkOf(site, v.citation, localDateOf(v.validFrom));

const noteWith = (note: string | null, pinpoint: PinpointAnswer | null): string | null =>
  pinpoint ? [note, pinpointNote(pinpoint)].filter(Boolean).join(' ') : note;

/** A stored version as the lookup endpoint answers it; `pinpoint` when the citation named a subdivision. */
export function presentVersion(site: SiteConfig, v: SectionVersion, pinpoint: PinpointAnswer | null = null) {
  return {
    citation: v.citation,
    catchline: v.catchline,
    bodyText: v.bodyText,
    historyNote: v.historyNote,
    note: noteWith(serviceNote(v), pinpoint),
    status: v.status,
    validFrom: v.validFrom,
    validTo: v.validTo,
    ingestedAt: v.ingestedAt,
    temporalBasis: v.temporalBasis,
    permalink: versionPermalink(site, v),
    provenance: v.provenance,
    disclaimer: DISCLAIMER,
    ...(v.topics?.length ? { topics: v.topics } : {}),
    ...(pinpoint && { pinpoint: presentPinpoint(pinpoint) }),
  };
}

const presentPinpoint = (p: PinpointAnswer) => ({
  requested: p.requested,
  applied: p.applied,
  display: p.display,
  text: p.text,
  reason: p.reason,
});

/** The quotable parts only: no validity dates, ingestion time or provenance object. */
export function presentText(site: SiteConfig, v: SectionVersion, pinpoint: PinpointAnswer | null = null) {
  const {
    validFrom: _from,
    validTo: _to,
    ingestedAt: _ingested,
    provenance: _provenance,
    topics: _topics,
    ...quotable
  } = presentVersion(site, v, pinpoint);
  return { ...quotable, versionLabel: v.provenance.versionLabel };
}

/** An audit finding under the field names the specification gives them. */
export const presentFinding = (f: AuditFinding) => ({
  scope: f.scope,
  check_name: f.checkName,
  status: f.status,
  detail: f.detail,
  rows: f.rows,
  avg_chars: f.avgChars,
  max_chars: f.maxChars,
  unexplained_empty: f.unexplainedEmpty,
  misattributed: f.misattributed,
});

/** A version in a timeline or a diff: its dates, labels and hash, and the permalink that opens it. */
export const presentVersionSummary = (site: SiteConfig, v: VersionSummary) => ({
  validFrom: v.validFrom,
  validTo: v.validTo,
  status: v.status,
  versionLabel: v.versionLabel,
  temporalBasis: v.temporalBasis,
  contentHash: v.contentHash,
  catchline: v.catchline,
  permalink: versionPermalink(site, v),
});

const gapNote = (g: { validFrom: string; validTo: string }) =>
  `No version of this section is on file from ${localDateOf(g.validFrom)} until ${localDateOf(g.validTo)}: a lookup of a date in between answers no_edition_on_file.`;

/** The versions endpoint's answer: the versions oldest first, each gap between two of them as an entry of its own. */
export function presentTimeline(site: SiteConfig, t: SectionTimeline) {
  return {
    citation: t.citation,
    versions: t.entries.map((e) =>
      e.kind === 'version'
        ? { kind: 'version' as const, ...presentVersionSummary(site, e.version) }
        : { kind: 'gap' as const, validFrom: e.validFrom, validTo: e.validTo, note: gapNote(e) },
    ),
    endedAt: t.endedAt,
    note:
      t.endedAt === null ? null : `No longer in force since ${localDateOf(t.endedAt)}: no version on file is valid on or after that date.`,
    disclaimer: DISCLAIMER,
  };
}

const diffSide = (site: SiteConfig, side: VersionDiff['from']) => ({
  date: side.date,
  version: presentVersionSummary(site, summarize(side.version)),
});

/** The diff endpoint's answer. */
export function presentDiff(site: SiteConfig, d: VersionDiff) {
  return {
    citation: d.citation,
    from: diffSide(site, d.from),
    to: diffSide(site, d.to),
    identical: d.identical,
    wordLevel: d.wordLevel,
    words: d.words,
    operations: d.operations,
    unified: d.unified,
    disclaimer: DISCLAIMER,
  };
}
