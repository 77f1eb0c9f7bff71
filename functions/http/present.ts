import type { SiteConfig } from '#app/services.ts';
import type { SectionRef, SectionVersion } from '#law/model.ts';
import { DISCLAIMER, serviceNote } from '#law/notes.ts';
import { type PinpointAnswer, pinpointNote } from '#law/pinpoint.ts';
import type { AuditFinding } from '#ops/ports.ts';

export const permalinkOf = (site: SiteConfig, ref: SectionRef): string =>
  `${site.siteUrl}/law/${encodeURIComponent(ref.jurisdiction)}/${encodeURIComponent(ref.corpus)}/${encodeURIComponent(ref.key)}`;

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
    permalink: permalinkOf(site, v.citation),
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
