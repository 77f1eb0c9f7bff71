import { createHash } from 'node:crypto';
import { type Collection, citationFor, collectionById } from '#law/collections.ts';
import {
  deriveSpans,
  type Observation,
  planWrites,
  type Span,
  sameObservations,
  type VersionWrite,
  withObservation,
} from '#law/history.ts';
import { OPEN_END, type SectionRef, type SectionVersion } from '#law/model.ts';
import {
  type EditionRecord,
  type EditionScope,
  type KeyHistory,
  type SearchIndex,
  type SkippedSection,
  type StoreWrite,
  searchDocumentId,
  toSearchDocument,
  type VersionStore,
} from '#law/ports.ts';
import { isCalendarDate, localMidnight } from '#shared/dates.ts';
import { contentHash, normalizeText, sha256Hex } from '#shared/hash.ts';
import { HeldDocuments } from './held-documents.ts';
import type { SourceDocument, SourceEdition } from './source.ts';

export interface IngestDeps {
  versions: VersionStore;
  search: SearchIndex;
  now: () => Date;
}

export interface IngestReport {
  edition: EditionRecord;
  documents: number;
  /** Keys whose versions changed. */
  changedKeys: number;
  /** Keys the edition covers but no longer shows. */
  absentKeys: number;
  /** Sections of the source the reader skipped (named in `edition.skipped`). */
  skipped: number;
  writes: { put: number; setValidTo: number; delete: number };
  /**
   * The edition was ingested completely before and shows the same keys with the same texts: nothing was read from
   * the stores but the edition list, and nothing was written but the edition record.
   */
  unchanged: boolean;
}

const BATCH = 200;
const MAX_RETRIES = 5;
/** Skipped sections an edition record names; the rest are counted. */
const SKIPPED_SAMPLE = 20;
/** Batches whose writes may still be going on while the next batch is planned. */
const IN_FLIGHT = 2;

/** A document's identity for versioning: a new version starts only when status, heading or text change. */
const identityOf = (doc: Pick<SourceDocument, 'status' | 'catchline' | 'bodyText'>): string =>
  sha256Hex(`${doc.status}\u0000${doc.catchline}\u0000${doc.bodyText}`).slice(0, 32);

function scopeId(scope: EditionScope): string {
  return scope.kind === 'prefix' ? `prefix:${scope.prefix}` : `keys:${sha256Hex([...scope.keys].sort().join('\n')).slice(0, 16)}`;
}

const editionIdOf = (collection: string, date: string, scope: EditionScope): string => `${collection}@${date}#${scopeId(scope)}`;

/** Key sets of `keys` scopes, built once per scope: an edition of a whole code may name tens of thousands of keys. */
const scopeKeySets = new WeakMap<readonly string[], ReadonlySet<string>>();

function inScope(scope: EditionScope, key: string): boolean {
  if (scope.kind === 'prefix') return key.startsWith(scope.prefix);
  let keys = scopeKeySets.get(scope.keys);
  if (!keys) {
    keys = new Set(scope.keys);
    scopeKeySets.set(scope.keys, keys);
  }
  return keys.has(key);
}

/**
 * Apply one edition: record each covered key's observation, derive its versions, and write the difference in the
 * order planWrites gives (every lookup answers the old or the new state at every step), then the key's history.
 * Re-running an edition changes nothing; one whose last ingest completed with the same documents is recognised after
 * the check pass and not written again, or before reading it at all when its source's fingerprint is the one that
 * ingest recorded. Versions are written before the history that implies them, so an ingest
 * that dies midway is completed by running it again.
 */
export async function ingestEdition(deps: IngestDeps, source: SourceEdition): Promise<IngestReport> {
  const collection = collectionById(source.collection);
  if (!isCalendarDate(source.date)) throw new Error(`edition date '${source.date}' is not YYYY-MM-DD`);
  checkHorizon(source);
  const edition: EditionRecord = {
    id: editionIdOf(collection.id, source.date, source.scope),
    collection: collection.id,
    date: source.date,
    label: source.label,
    temporalBasis: source.temporalBasis,
    sourceSystem: collection.sourceSystem,
    retrievedAt: source.retrievedAt,
    scope: source.scope,
    source: source.source,
    ...(source.sourceUrl && { sourceUrl: source.sourceUrl }),
    ...(source.horizon && { horizon: { from: source.horizon.from, until: source.horizon.until } }),
    documents: 0,
    ingestedAt: deps.now().toISOString(),
  };
  // A source that fingerprints what it reads (and the code reading it) and whose last complete ingest recorded the
  // same fingerprint is that edition again: skipped before it is read. The source is asked only when such an ingest
  // is on file; a first ingest takes the fingerprint of its own reading.
  if (source.fingerprint) {
    const onFile = await deps.versions.listEditions(collection.id);
    const previous = onFile.find((e) => e.id === edition.id);
    const fingerprint = previous?.completeDigest && previous.sourceFingerprint ? await source.fingerprint() : null;
    const same = previous && fingerprint ? sameAsComplete(previous, onFile, edition, fingerprint) : null;
    if (same) return unchangedReport(deps, same);
  }
  // Every document is checked before anything is written: an edition that fails the checks leaves the store as it was.
  const checked = await checkEdition(collection, source);
  try {
    // The fingerprint of what the check pass read (a source changed since it was asked above is not skipped later).
    const read: EditionRecord = { ...edition };
    const after = (await source.fingerprint?.()) ?? null;
    if (after) read.sourceFingerprint = after;
    return await applyEdition(deps, collection, source, read, checked);
  } finally {
    checked.documents.dispose();
  }
}

/**
 * The record to write for an edition skipped unread: the previous complete ingest's (`previous`, of the same id), with
 * this run's reading, when that ingest recorded the same fingerprint and no other edition of the date speaks for its
 * keys; else null.
 */
function sameAsComplete(
  previous: EditionRecord,
  onFile: readonly EditionRecord[],
  edition: EditionRecord,
  fingerprint: string,
): EditionRecord | null {
  if (!previous.completeDigest || previous.sourceFingerprint !== fingerprint || sameDateOverlap(onFile, edition)) return null;
  const { skipped: _skipped, ...rest } = edition;
  return {
    ...rest,
    ...(previous.skipped && { skipped: previous.skipped }),
    documents: previous.documents,
    completeDigest: previous.completeDigest,
    sourceFingerprint: fingerprint,
  };
}

async function unchangedReport(deps: IngestDeps, done: EditionRecord): Promise<IngestReport> {
  // Only the record says it was read again, as a full re-run would leave it.
  await deps.versions.putEdition(done);
  return {
    edition: done,
    documents: done.documents,
    changedKeys: 0,
    absentKeys: 0,
    skipped: done.skipped?.count ?? 0,
    writes: { put: 0, setValidTo: 0, delete: 0 },
    unchanged: true,
  };
}

async function applyEdition(
  deps: IngestDeps,
  collection: Collection,
  source: SourceEdition,
  edition: EditionRecord,
  checked: CheckedEdition,
): Promise<IngestReport> {
  const skipped = source.skipped?.() ?? [];
  if (skipped.length) edition.skipped = { count: skipped.length, sample: skipped.slice(0, SKIPPED_SAMPLE) };
  const onFile = await deps.versions.listEditions(collection.id);
  if (unchangedSinceComplete(onFile, edition, checked.digest)) {
    return unchangedReport(deps, { ...edition, documents: checked.identities.size, completeDigest: checked.digest });
  }
  // Then the edition record, without a digest (nor a fingerprint) until the end: versions starting at this edition
  // take their provenance from it, and an ingest cut off before the end leaves it marked incomplete.
  const { sourceFingerprint: _fingerprint, ...started } = edition;
  await deps.versions.putEdition(started);
  const editions = new Map(onFile.map((e) => [e.id, e]));
  editions.set(edition.id, started);

  const writer = new KeyWriter(deps, collection, started, editions, checked.identities);
  try {
    const { seen, absent } = await writeEdition(deps, collection, source, checked, skipped, writer);
    const completeDigest = checked.digest;
    const done: EditionRecord = { ...edition, documents: seen.size, completeDigest };
    await deps.versions.putEdition(done);
    return {
      edition: done,
      documents: seen.size,
      changedKeys: writer.changedKeys,
      absentKeys: absent.length,
      skipped: skipped.length,
      writes: writer.counts,
      unchanged: false,
    };
  } finally {
    // Nothing of this ingest may still be writing once it has returned or failed (the lease is released after it).
    await writer.settle();
  }
}

/** The edition's documents, as the check pass held them, and the keys it no longer shows, through `writer`. */
async function writeEdition(
  deps: IngestDeps,
  collection: Collection,
  source: SourceEdition,
  checked: CheckedEdition,
  skipped: readonly SkippedSection[],
  writer: KeyWriter,
): Promise<{ seen: Set<string>; absent: string[] }> {
  const seen = new Set<string>();
  let batch: SourceDocument[] = [];
  const flush = async () => {
    await writer.apply(
      batch.map((d) => d.key),
      new Map(batch.map((d) => [d.key, d])),
    );
    batch = [];
  };
  for await (const doc of checked.documents) {
    if (seen.has(doc.key) || !checked.identities.has(doc.key)) throw new Error(`${source.source}: held documents lost (${doc.key})`);
    seen.add(doc.key);
    batch.push(doc);
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length) await flush();
  await writer.drain();

  if (seen.size !== checked.identities.size)
    throw new Error(`${source.source}: held documents lost (${checked.identities.size} checked, ${seen.size} read back)`);

  // Keys the edition speaks for but does not show: their versions end here. A key whose section was skipped is
  // neither shown nor dropped.
  const absent = await absentKeys(deps.versions, collection, source.scope, new Set([...seen, ...skippedKeys(skipped)]));
  for (let i = 0; i < absent.length; i += BATCH) await writer.apply(absent.slice(i, i + BATCH), new Map());
  await writer.drain();
  return { seen, absent };
}

const skippedKeys = (skipped: readonly SkippedSection[]): string[] => skipped.flatMap((s) => (s.key ? [s.key] : []));

/** What an edition shows, as its observations see it: each key and its text identity, in the order read. */
class EditionDigest {
  private readonly hash = createHash('sha256');

  add(key: string, identity: string): void {
    this.hash.update(`${key}\u0000${identity}\n`);
  }

  value(): string {
    return this.hash.digest('hex');
  }
}

/**
 * Would ingesting the edition again change nothing? Only when its last ingest completed with the same digest and the
 * same sections skipped, and no
 * other edition of the same date speaks for any of its keys (an observation is replaced by the next one of its date,
 * so such an edition may have replaced this one's since).
 */
function unchangedSinceComplete(onFile: readonly EditionRecord[], edition: EditionRecord, digest: string): boolean {
  const previous = onFile.find((e) => e.id === edition.id);
  if (previous?.completeDigest !== digest) return false;
  if (JSON.stringify(previous.skipped ?? null) !== JSON.stringify(edition.skipped ?? null)) return false;
  return !sameDateOverlap(onFile, edition);
}

/** Another edition of the same date speaks for some of the edition's keys (and may have replaced its observations). */
const sameDateOverlap = (onFile: readonly EditionRecord[], edition: EditionRecord): boolean =>
  onFile.some((e) => e.id !== edition.id && e.date === edition.date && scopesOverlap(e.scope, edition.scope));

function scopesOverlap(a: EditionScope, b: EditionScope): boolean {
  if (a.kind === 'prefix' && b.kind === 'prefix') return a.prefix.startsWith(b.prefix) || b.prefix.startsWith(a.prefix);
  if (a.kind === 'keys' && b.kind === 'keys') {
    const keys = new Set(a.keys);
    return b.keys.some((k) => keys.has(k));
  }
  const [prefix, keys] = a.kind === 'prefix' ? [a.prefix, (b as { keys: string[] }).keys] : [(b as { prefix: string }).prefix, a.keys];
  return keys.some((k) => k.startsWith(prefix));
}

/**
 * Reads the edition once to check every document (its collection, its scope, no key twice). Returns each key's text
 * identity, the edition's digest and the checked documents, held for the writes (held-documents.ts: in memory up to
 * HELD_CHARS, the rest in a temporary file), so that the source is read once and memory stays bounded whatever the
 * edition's size. The caller disposes of them.
 */
interface CheckedEdition {
  /** Each key the edition shows, with its text identity (identityOf), in the order read. */
  identities: Map<string, string>;
  documents: HeldDocuments;
  digest: string;
}

/** Characters of text (about one or two bytes each in memory) an edition's checked documents hold in memory. */
const HELD_CHARS = 16 * 1024 * 1024;

async function checkEdition(collection: Collection, source: SourceEdition): Promise<CheckedEdition> {
  const identities = new Map<string, string>();
  const held = new HeldDocuments(HELD_CHARS);
  const digest = new EditionDigest();
  try {
    for await (const raw of source.documents) {
      const doc = checkedDocument(collection, source, raw);
      if (identities.has(doc.key)) throw new Error(`${source.source}: key ${doc.key} appears twice in one edition`);
      const identity = identityOf(doc);
      identities.set(doc.key, identity);
      digest.add(doc.key, identity);
      held.add(doc);
    }
  } catch (err) {
    held.dispose();
    throw err;
  }
  return { identities, documents: held, digest: digest.value() };
}

function checkedDocument(collection: Collection, source: SourceEdition, doc: SourceDocument): SourceDocument {
  if (!collection.ownsKey(doc.key)) {
    throw new Error(`${source.source}: '${doc.key}' is not a ${collection.name} key (collection ${collection.id})`);
  }
  if (!inScope(source.scope, doc.key)) {
    throw new Error(`${source.source}: ${doc.key} lies outside the edition's scope (${scopeId(source.scope)})`);
  }
  return { ...doc, bodyText: normalizeText(doc.bodyText), catchline: doc.catchline.trim() };
}

async function absentKeys(store: VersionStore, collection: Collection, scope: EditionScope, seen: Set<string>): Promise<string[]> {
  const keys: string[] = [];
  if (scope.kind === 'prefix') {
    for await (const h of store.historiesWithPrefix(collection.jurisdiction, collection.corpus, scope.prefix)) {
      if (h.collection === collection.id && !seen.has(h.key)) keys.push(h.key);
    }
  } else {
    keys.push(...scope.keys.filter((k) => !seen.has(k)));
  }
  return keys;
}

interface KeyPlan {
  ref: SectionRef;
  history: KeyHistory;
  writes: VersionWrite[];
  doc: SourceDocument | undefined;
}

/**
 * Applies observations for batches of keys of one edition. A batch's version writes go phase by phase (see
 * planWrites), then its search writes, then its histories (each key's history after its versions and search rows,
 * so a re-run redoes whatever a crash cut short); the whole batch goes on behind the next, at most IN_FLIGHT batches
 * at a time: the embedded stores' threads write while the main thread reads and plans the next batch. Batches hold
 * different keys, so their writes never touch the same item. `drain` waits for them all.
 */
class KeyWriter {
  changedKeys = 0;
  readonly counts = { put: 0, setValidTo: 0, delete: 0 };
  private readonly inFlight = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly deps: IngestDeps,
    private readonly collection: Collection,
    private readonly edition: EditionRecord,
    private readonly editions: Map<string, EditionRecord>,
    /** Each shown key's text identity, as the check pass computed it. */
    private readonly identities: ReadonlyMap<string, string>,
  ) {}

  async apply(keys: string[], docs: Map<string, SourceDocument>): Promise<void> {
    this.throwIfFailed();
    while (this.inFlight.size >= IN_FLIGHT) await Promise.race(this.inFlight);
    this.throwIfFailed();
    const tail = this.writeVersions(keys, docs)
      .then((rest) => rest())
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.inFlight.delete(tail));
    this.inFlight.add(tail);
  }

  /** Waits for every batch's writes; throws the first failure. */
  async drain(): Promise<void> {
    await this.settle();
    this.throwIfFailed();
  }

  /** Waits until no write of this writer is going on (a failure is kept for drain and apply). */
  async settle(): Promise<void> {
    while (this.inFlight.size) await Promise.all(this.inFlight);
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }

  /**
   * Plans the keys and writes their versions; returns what remains of the batch: the search writes, then the
   * histories, then again for the keys that lost an optimistic-concurrency race (re-planned, up to MAX_RETRIES).
   */
  private async writeVersions(keys: string[], docs: Map<string, SourceDocument>, attempt = 0): Promise<() => Promise<void>> {
    if (attempt > MAX_RETRIES) throw new Error(`keys kept changing under the ingest: ${keys.slice(0, 5).join(', ')}`);
    const plans = await this.plan(keys, docs);
    const phases: StoreWrite[][] = [];
    const steps = Math.max(0, ...plans.map((p) => p.writes.length));
    for (let step = 0; step < steps; step++) {
      const writes: StoreWrite[] = [];
      for (const p of plans) {
        const w = p.writes[step];
        if (w) writes.push(await this.toStoreWrite(p, w));
      }
      await this.deps.versions.applyWrites(writes);
      phases.push(writes);
    }
    return async () => {
      for (const writes of phases) await this.mirrorToSearch(writes);
      const lost = await this.putHistories(plans);
      if (lost.length) await (await this.writeVersions(lost, docs, attempt + 1))();
    };
  }

  private async plan(keys: string[], docs: Map<string, SourceDocument>): Promise<KeyPlan[]> {
    const { jurisdiction, corpus } = this.collection;
    const histories = await this.deps.versions.getHistories(jurisdiction, corpus, keys);
    const plans: KeyPlan[] = [];
    for (const key of keys) {
      const doc = docs.get(key);
      const stored = histories.get(key);
      if (!stored && !doc) continue; // absent from an edition and never seen: nothing to end (yet; see newHistory)
      const history: KeyHistory = stored ?? this.newHistory(key);
      const current = observationOf(this.edition, doc ? this.identities.get(key)! : null);
      const observations = withObservation(history.observations, current);
      if (sameObservations(observations, history.observations)) continue;
      const before = deriveSpans(history.observations);
      const after = deriveSpans(observations);
      plans.push({
        ref: { jurisdiction, corpus, key },
        history: { ...history, observations, summary: this.summaryOf(after) },
        writes: planWrites(before, after, current),
        doc,
      });
    }
    return plans;
  }

  /** Writes each plan's history; returns the keys that lost an optimistic-concurrency race and must be re-planned. */
  private async putHistories(plans: KeyPlan[]): Promise<string[]> {
    const lost = await this.deps.versions.putHistories(plans.map((p) => p.history));
    const raced = new Set(lost);
    this.changedKeys += plans.filter((p) => p.writes.length && !raced.has(p.ref.key)).length;
    return lost;
  }

  /**
   * The history of a key seen for the first time. Editions on file that cover the key were ingested without it
   * (else it would have a history): each is an absence, recorded now, so an edition that arrives out of order
   * cannot reopen a section a later edition already dropped.
   */
  private newHistory(key: string): KeyHistory {
    const history = emptyHistory(this.collection, key);
    for (const e of this.editions.values()) {
      if (e.id !== this.edition.id && inScope(e.scope, key)) {
        history.observations = withObservation(history.observations, observationOf(e, null));
      }
    }
    return history;
  }

  private async toStoreWrite(plan: KeyPlan, w: VersionWrite): Promise<StoreWrite> {
    const tz = this.collection.timeZone;
    this.counts[w.kind]++;
    if (w.kind === 'delete') return { kind: 'delete', ref: plan.ref, validFrom: localMidnight(w.from, tz) };
    if (w.kind === 'setValidTo') {
      return {
        kind: 'setValidTo',
        ref: plan.ref,
        validFrom: localMidnight(w.from, tz),
        validTo: w.to ? localMidnight(w.to, tz) : OPEN_END,
      };
    }
    return { kind: 'put', version: await this.versionFor(plan, w.span, w.copyFrom) };
  }

  private async versionFor(plan: KeyPlan, span: Span, copyFrom: string | null): Promise<SectionVersion> {
    const tz = this.collection.timeZone;
    const startEdition = this.editions.get(span.editionId);
    if (!startEdition) throw new Error(`edition ${span.editionId} is not on file for ${plan.ref.key}`);
    let texts: Pick<SectionVersion, 'catchline' | 'bodyText' | 'historyNote' | 'status' | 'note'> & { parts: Record<string, string> };
    if (copyFrom === null) {
      const doc = plan.doc!;
      texts = {
        catchline: doc.catchline,
        bodyText: doc.bodyText,
        historyNote: doc.historyNote,
        status: doc.status,
        note: doc.note ?? null,
        parts: doc.parts,
      };
    } else {
      const source = await this.storedText(plan.ref, span, copyFrom);
      texts = { ...source, parts: source.citation.parts };
    }
    const temporalBasis = startEdition.temporalBasis;
    return {
      citation: citationFor(this.collection, plan.ref.key, texts.parts),
      catchline: texts.catchline,
      bodyText: texts.bodyText,
      historyNote: texts.historyNote,
      note: texts.note,
      status: texts.status,
      validFrom: localMidnight(span.from, tz),
      validTo: span.to ? localMidnight(span.to, tz) : OPEN_END,
      ingestedAt: this.deps.now().toISOString(),
      temporalBasis,
      provenance: {
        sourceUrl: startEdition.sourceUrl ?? this.collection.sourceUrl(plan.ref.key),
        retrievedAt: startEdition.retrievedAt,
        contentHash: contentHash(texts.bodyText),
        sourceSystem: startEdition.sourceSystem,
        versionLabel: startEdition.label,
      },
    };
  }

  /**
   * The stored version whose text a run starting at `span.from` copies: the one at `copyFrom`, checked by identity.
   * An interrupted run of the same plan may already have overwritten that item (a re-ingest of its date with another
   * text) after writing the copy at `span.from`; then that copy is the source. Never another run's text.
   */
  private async storedText(ref: SectionRef, span: Span, copyFrom: string): Promise<SectionVersion> {
    const tz = this.collection.timeZone;
    for (const from of [copyFrom, span.from]) {
      const stored = await this.deps.versions.getVersion(ref, localMidnight(from, tz));
      if (stored && identityOf(stored) === span.identity) return stored;
    }
    throw new Error(
      `no stored version of ${ref.key} holds the text of the run starting ${span.from} (expected at ${copyFrom}): run \`asof audit\``,
    );
  }

  private async mirrorToSearch(writes: StoreWrite[]): Promise<void> {
    const puts = writes.flatMap((w) => (w.kind === 'put' ? [toSearchDocument(w.version)] : []));
    if (puts.length) await this.deps.search.upsert(puts);
    const ends = writes.flatMap((w) => (w.kind === 'setValidTo' ? [w] : []));
    for (let i = 0; i < ends.length; i += 16) {
      await Promise.all(ends.slice(i, i + 16).map((w) => this.deps.search.setValidTo(searchDocumentId(w.ref, w.validFrom), w.validTo)));
    }
    const gone = writes.flatMap((w) => (w.kind === 'delete' ? [searchDocumentId(w.ref, w.validFrom)] : []));
    if (gone.length) await this.deps.search.remove(gone);
  }

  private summaryOf(spans: Span[]): KeyHistory['summary'] {
    const first = spans[0];
    const last = spans.at(-1);
    const lastEdition = last ? this.editions.get(last.editionId) : undefined;
    const retrieved =
      spans
        .map((s) => this.editions.get(s.editionId)?.retrievedAt ?? '')
        .sort()
        .at(-1) || null;
    return {
      versions: spans.length,
      firstValidFrom: first ? localMidnight(first.from, this.collection.timeZone) : null,
      latestVersionLabel: lastEdition?.label ?? null,
      lastRetrievedAt: retrieved,
    };
  }
}

/** One edition's observation of a key: its identity there (null: absent), with the edition's horizon. */
const observationOf = (edition: EditionRecord, identity: string | null): Observation => ({
  date: edition.date,
  editionId: edition.id,
  identity,
  ...(edition.horizon && { horizon: edition.horizon }),
});

function checkHorizon(source: SourceEdition): void {
  const h = source.horizon;
  if (!h) return;
  if (!isCalendarDate(h.from) || !isCalendarDate(h.until) || !(h.from <= source.date && source.date < h.until)) {
    throw new Error(`${source.source}: horizon ${h.from}–${h.until} must be calendar dates around the edition date ${source.date}`);
  }
}

const emptyHistory = (collection: Collection, key: string): KeyHistory => ({
  jurisdiction: collection.jurisdiction,
  corpus: collection.corpus,
  key,
  collection: collection.id,
  observations: [],
  rev: 0,
  summary: { versions: 0, firstValidFrom: null, latestVersionLabel: null, lastRetrievedAt: null },
});
