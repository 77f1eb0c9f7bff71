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
  type StoreWrite,
  searchDocumentId,
  toSearchDocument,
  type VersionStore,
} from '#law/ports.ts';
import { isCalendarDate, localMidnight } from '#shared/dates.ts';
import { ConcurrentUpdateError } from '#shared/errors.ts';
import { contentHash, normalizeText, sha256Hex } from '#shared/hash.ts';
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
  writes: { put: number; setValidTo: number; delete: number };
}

const BATCH = 200;
const MAX_RETRIES = 5;

/** A document's identity for versioning: a new version starts only when status, heading or text change. */
const identityOf = (doc: Pick<SourceDocument, 'status' | 'catchline' | 'bodyText'>): string =>
  sha256Hex(`${doc.status}\u0000${doc.catchline}\u0000${doc.bodyText}`).slice(0, 32);

function scopeId(scope: EditionScope): string {
  return scope.kind === 'prefix' ? `prefix:${scope.prefix}` : `keys:${sha256Hex([...scope.keys].sort().join('\n')).slice(0, 16)}`;
}

const editionIdOf = (collection: string, date: string, scope: EditionScope): string => `${collection}@${date}#${scopeId(scope)}`;

const inScope = (scope: EditionScope, key: string): boolean =>
  scope.kind === 'prefix' ? key.startsWith(scope.prefix) : scope.keys.includes(key);

/**
 * Apply one edition: record each covered key's observation, derive its versions, and write the difference in the
 * order planWrites gives (every lookup answers the old or the new state at every step), then the key's history.
 * Re-running an edition changes nothing. Versions are written before the history that implies them, so an ingest
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
  // Every document is checked before anything is written: an edition that fails the checks leaves the store as it was.
  const checked = await checkEdition(collection, source);
  // Then the edition record: versions starting at this edition take their provenance from it.
  await deps.versions.putEdition(edition);
  const editions = new Map((await deps.versions.listEditions(collection.id)).map((e) => [e.id, e]));
  editions.set(edition.id, edition);

  const writer = new KeyWriter(deps, collection, edition, editions);
  const seen = new Set<string>();
  let batch: SourceDocument[] = [];
  for await (const raw of checked.documents) {
    const doc = checkedDocument(collection, source, raw);
    if (seen.has(doc.key) || !checked.keys.has(doc.key))
      throw new Error(`${source.source}: the documents changed between two readings (${doc.key})`);
    seen.add(doc.key);
    batch.push(doc);
    if (batch.length >= BATCH) {
      await writer.apply(
        batch.map((d) => d.key),
        new Map(batch.map((d) => [d.key, d])),
      );
      batch = [];
    }
  }
  if (batch.length)
    await writer.apply(
      batch.map((d) => d.key),
      new Map(batch.map((d) => [d.key, d])),
    );

  if (seen.size !== checked.keys.size)
    throw new Error(`${source.source}: the documents changed between two readings (${checked.keys.size} then ${seen.size})`);

  // Keys the edition speaks for but does not show: their versions end here.
  const absent = await absentKeys(deps.versions, collection, source.scope, seen);
  for (let i = 0; i < absent.length; i += BATCH) await writer.apply(absent.slice(i, i + BATCH), new Map());

  const done = { ...edition, documents: seen.size };
  await deps.versions.putEdition(done);
  return { edition: done, documents: seen.size, changedKeys: writer.changedKeys, absentKeys: absent.length, writes: writer.counts };
}

/**
 * Reads the edition once to check every document (its collection, its scope, no key twice). Returns the keys and
 * what to read for the writes: the source again when it can be iterated again (the connectors re-read their files,
 * holding one section at a time), or the documents kept here when it is a one-shot iterator.
 */
async function checkEdition(
  collection: Collection,
  source: SourceEdition,
): Promise<{ keys: Set<string>; documents: SourceEdition['documents'] }> {
  const oneShot = typeof (source.documents as { next?: unknown }).next === 'function';
  const keys = new Set<string>();
  const kept: SourceDocument[] = [];
  for await (const raw of source.documents) {
    const doc = checkedDocument(collection, source, raw);
    if (keys.has(doc.key)) throw new Error(`${source.source}: key ${doc.key} appears twice in one edition`);
    keys.add(doc.key);
    if (oneShot) kept.push(doc);
  }
  return { keys, documents: oneShot ? kept : source.documents };
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

/** Applies observations for a batch of keys of one edition. */
class KeyWriter {
  changedKeys = 0;
  readonly counts = { put: 0, setValidTo: 0, delete: 0 };

  constructor(
    private readonly deps: IngestDeps,
    private readonly collection: Collection,
    private readonly edition: EditionRecord,
    private readonly editions: Map<string, EditionRecord>,
  ) {}

  async apply(keys: string[], docs: Map<string, SourceDocument>): Promise<void> {
    let pending = keys;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > MAX_RETRIES) throw new Error(`keys kept changing under the ingest: ${pending.slice(0, 5).join(', ')}`);
      pending = await this.applyOnce(pending, docs);
    }
  }

  /** Returns the keys that lost an optimistic-concurrency race and must be re-planned. */
  private async applyOnce(keys: string[], docs: Map<string, SourceDocument>): Promise<string[]> {
    const { jurisdiction, corpus } = this.collection;
    const histories = await this.deps.versions.getHistories(jurisdiction, corpus, keys);
    const plans: KeyPlan[] = [];
    for (const key of keys) {
      const doc = docs.get(key);
      const stored = histories.get(key);
      if (!stored && !doc) continue; // absent from an edition and never seen: nothing to end (yet; see newHistory)
      const history: KeyHistory = stored ?? this.newHistory(key);
      const current = observationOf(this.edition, doc ? identityOf(doc) : null);
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

    const phases = Math.max(0, ...plans.map((p) => p.writes.length));
    for (let step = 0; step < phases; step++) {
      const writes: StoreWrite[] = [];
      for (const p of plans) {
        const w = p.writes[step];
        if (w) writes.push(await this.toStoreWrite(p, w));
      }
      await this.deps.versions.applyWrites(writes);
      await this.mirrorToSearch(writes);
    }

    const lost: string[] = [];
    await Promise.all(
      plans.map(async (p) => {
        try {
          await this.deps.versions.putHistory(p.history);
          if (p.writes.length) this.changedKeys++;
        } catch (err) {
          if (err instanceof ConcurrentUpdateError) lost.push(p.ref.key);
          else throw err;
        }
      }),
    );
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
