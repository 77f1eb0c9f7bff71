/**
 * Versions are derived, never edited by hand: each edition of a source either shows a section (with some text) or
 * does not. A key's history is the list of those observations; its versions are the runs of consecutive
 * observations with the same text, each valid from the run's first edition until the next edition that shows
 * different text or no section at all. Editions may arrive in any order; re-adding an observation is a no-op.
 *
 * An edition may carry a horizon: the time its text is known to speak for. Gaps stay gaps: where the next edition's
 * horizon (or date) begins after this one's horizon ends, nothing on file speaks for the time between, so a text
 * that changes there (or a section the next edition lacks) ends at this edition's horizon, and so does the text of
 * the last edition. The same text on both sides of a gap stays one version, as between any two editions.
 */

/**
 * What an edition's text is known to speak for: [from, until), around the edition's date. The federal rules, e.g.,
 * change only on December 1: an edition as amended to 2012-01-03 speaks for 2011-12-01 until 2012-12-01.
 */
export interface Horizon {
  from: string;
  until: string;
}

/** One edition's view of one key. `identity` is null when the edition's scope covers the key but lacks it. */
export interface Observation {
  /** Local calendar date the edition speaks from (YYYY-MM-DD). */
  date: string;
  editionId: string;
  identity: string | null;
  /** The edition's horizon, when it has one (none: its text runs until the next edition, however far). */
  horizon?: Horizon;
}

/** A version interval in calendar dates: [from, to), `to` null when open. */
export interface Span {
  from: string;
  to: string | null;
  identity: string;
  /** The edition whose observation starts the run: it supplies the version's provenance. */
  editionId: string;
}

/** Insert `obs`, replacing any observation of the same date (a re-ingest of that date speaks for it now). */
export function withObservation(observations: readonly Observation[], obs: Observation): Observation[] {
  const rest = observations.filter((o) => o.date !== obs.date);
  rest.push(obs);
  return rest.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

const sameHorizon = (a: Horizon | undefined, b: Horizon | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.from === b.from && a.until === b.until);

export const sameObservations = (a: readonly Observation[], b: readonly Observation[]): boolean =>
  a.length === b.length &&
  a.every(
    (o, i) =>
      o.date === b[i]!.date && o.identity === b[i]!.identity && o.editionId === b[i]!.editionId && sameHorizon(o.horizon, b[i]!.horizon),
  );

/** Nothing on file speaks for the time between `prev` and `next`: prev's horizon ends before next's begins. */
const gapBetween = (prev: Observation, next: Observation): boolean =>
  prev.horizon !== undefined && (next.horizon?.from ?? next.date) > prev.horizon.until;

/** The versions a sorted observation list implies. */
export function deriveSpans(observations: readonly Observation[]): Span[] {
  const spans: Span[] = [];
  let open: Span | null = null;
  let prev: Observation | undefined;
  for (const o of observations) {
    if (open && o.identity === open.identity) {
      prev = o;
      continue;
    }
    if (open) {
      // `prev` belongs to the open run (else the run would have ended at it).
      open.to = prev && gapBetween(prev, o) ? prev.horizon!.until : o.date;
      spans.push(open);
      open = null;
    }
    if (o.identity !== null) open = { from: o.date, to: null, identity: o.identity, editionId: o.editionId };
    prev = o;
  }
  if (open) {
    open.to = prev?.horizon?.until ?? null;
    spans.push(open);
  }
  return spans;
}

/** The span in force on `date`, if any. */
export const spanOn = (spans: readonly Span[], date: string): Span | undefined =>
  spans.find((s) => s.from <= date && (s.to === null || date < s.to));

export type VersionWrite =
  /** Write a version item. Its texts come from the edition being ingested, or are copied from the stored item
   *  that starts at `copyFrom` (same identity) when an older observation becomes the start of a run. */
  | { kind: 'put'; span: Span; copyFrom: string | null }
  | { kind: 'setValidTo'; from: string; to: string | null }
  | { kind: 'delete'; from: string };

/**
 * The writes that turn the stored spans `before` into `after`, in an order that keeps every lookup answering
 * either the old or the new state after each single write (a lookup takes the latest item starting on or before
 * the date and checks its end): later starts first, so a new item never ends before its successor exists; deletes
 * last and earliest first, so the item that takes over a deleted item's dates is already in its new state.
 *
 * `current` is the observation being ingested: a put that starts on its date takes its text from that edition.
 */
export function planWrites(before: readonly Span[], after: readonly Span[], current: Observation): VersionWrite[] {
  const oldByFrom = new Map(before.map((s) => [s.from, s]));
  const newFroms = new Set(after.map((s) => s.from));
  const writes: VersionWrite[] = [];

  for (const span of [...after].sort((a, b) => (a.from < b.from ? 1 : -1))) {
    const old = oldByFrom.get(span.from);
    if (old && old.identity === span.identity) {
      if (old.to !== span.to) writes.push({ kind: 'setValidTo', from: span.from, to: span.to });
      continue;
    }
    if (span.from === current.date && current.identity === span.identity) {
      writes.push({ kind: 'put', span, copyFrom: null });
      continue;
    }
    const source = spanOn(before, span.from);
    if (!source || source.identity !== span.identity) {
      throw new Error(`no stored text for the run starting ${span.from}: history and versions disagree`);
    }
    writes.push({ kind: 'put', span, copyFrom: source.from });
  }

  for (const old of [...before].sort((a, b) => (a.from < b.from ? -1 : 1))) {
    if (!newFroms.has(old.from)) writes.push({ kind: 'delete', from: old.from });
  }
  return writes;
}
