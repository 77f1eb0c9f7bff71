import type { SectionStatus } from '#law/model.ts';

/** The values of USLM's `status` attribute a version keeps as its status (the others are read from the printed placeholder). */
export const STATUS_ATTRIBUTES: ReadonlySet<string> = new Set(['repealed', 'omitted', 'transferred', 'renumbered', 'reserved', 'expired']);
// The word alone or followed by the source's punctuation: "Repealed.", "[Reserved]", "Renumbered § 116]" — not
// "Transferred employees".
const PLACEHOLDER = /^\[?\s*(repealed|omitted|transferred|renumbered|reserved|expired)\s*(?:$|[.\],;—§-])/i;
const PLACEHOLDER_BODY_MAX = 300;

/** The status a section's printed placeholder states ("§ 5. Repealed.", "[Reserved]"), else active. */
export function placeholderStatus(catchline: string, bodyText: string): SectionStatus {
  const body = bodyText.trim();
  const match =
    PLACEHOLDER.exec(catchline.trim()) ?? (body.length <= PLACEHOLDER_BODY_MAX && !body.includes('\n') ? PLACEHOLDER.exec(body) : null);
  return match ? (match[1]!.toLowerCase() as SectionStatus) : 'active';
}
