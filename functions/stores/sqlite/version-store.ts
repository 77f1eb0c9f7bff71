import { COLLECTIONS } from '#law/collections.ts';
import { type Corpus, refId, type SectionRef, type SectionVersion, type VersionSummary } from '#law/model.ts';
import type { EditionRecord, KeyHistory, NearbyKey, StoreWrite, VersionStore } from '#law/ports.ts';
import { addDays, localDateOf } from '#shared/dates.ts';
import { ConcurrentUpdateError } from '#shared/errors.ts';
import { assertItemFits } from '#stores/item-size.ts';
import type { SqliteDatabase, SqliteSchema } from './database.ts';

/*
 * The law store of law.sqlite: section versions, key histories and editions, one table each. A domain object is
 * JSON text beside the columns it is found, ordered or conditioned by; what a column holds is not repeated in the
 * JSON (a version's validFrom and validTo, a history's key, rev and summary), so the two cannot disagree. The small
 * JSON a list reads (a version's summary, a history's summary) comes before the large one in the row: SQLite reads
 * a row's overflow pages only as far as the columns asked for, so a list never reads a body.
 * Keys compare as SQLite's BINARY text (bytes of UTF-8), the order DynamoDB gives its sort keys; a validFrom (ISO
 * with offset) sorts by its local date, so `valid_from < next day` finds the versions starting on or before a date.
 */

export const VERSION_STORE_SCHEMA: SqliteSchema = {
  name: 'law-versions',
  steps: [
    [
      `CREATE TABLE law_versions (
        jurisdiction TEXT NOT NULL,
        corpus TEXT NOT NULL,
        key TEXT NOT NULL,
        valid_from TEXT NOT NULL,
        valid_to TEXT NOT NULL,
        summary TEXT NOT NULL,
        version TEXT NOT NULL,
        PRIMARY KEY (jurisdiction, corpus, key, valid_from)
      ) STRICT`,
      `CREATE TABLE law_histories (
        jurisdiction TEXT NOT NULL,
        corpus TEXT NOT NULL,
        key TEXT NOT NULL,
        rev INTEGER NOT NULL,
        summary TEXT NOT NULL,
        history TEXT NOT NULL,
        PRIMARY KEY (jurisdiction, corpus, key)
      ) STRICT`,
      `CREATE TABLE law_editions (
        collection TEXT NOT NULL,
        date TEXT NOT NULL,
        id TEXT NOT NULL,
        edition TEXT NOT NULL,
        PRIMARY KEY (collection, date, id)
      ) STRICT`,
    ],
  ],
};

/** Rows a whole-store scan reads at once (a history is at most 400 KB, most are a few KB). */
const SCAN_PAGE_ROWS = 200;
/** Keys one statement of getSummaries or getHistories names. */
const KEYS_PER_STATEMENT = 500;

const SQL = {
  findInForce: `SELECT valid_from, valid_to, version FROM law_versions
    WHERE jurisdiction = ? AND corpus = ? AND key = ? AND valid_from < ? ORDER BY valid_from DESC LIMIT 1`,
  getVersion: `SELECT valid_from, valid_to, version FROM law_versions
    WHERE jurisdiction = ? AND corpus = ? AND key = ? AND valid_from = ?`,
  listVersions: `SELECT valid_from, valid_to, summary FROM law_versions
    WHERE jurisdiction = ? AND corpus = ? AND key = ? ORDER BY valid_from`,
  // Each wanted version is [jurisdiction, corpus, key, validFrom]; the JSON array drives the loop, one index seek each.
  getSummaries: `SELECT w.key AS i, v.valid_from, v.valid_to, v.summary FROM json_each(?) AS w
    CROSS JOIN law_versions AS v ON v.jurisdiction = w.value ->> 0 AND v.corpus = w.value ->> 1
      AND v.key = w.value ->> 2 AND v.valid_from = w.value ->> 3`,
  putVersion: `INSERT INTO law_versions (jurisdiction, corpus, key, valid_from, valid_to, summary, version)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (jurisdiction, corpus, key, valid_from)
      DO UPDATE SET valid_to = excluded.valid_to, summary = excluded.summary, version = excluded.version`,
  setValidTo: 'UPDATE law_versions SET valid_to = ? WHERE jurisdiction = ? AND corpus = ? AND key = ? AND valid_from = ?',
  deleteVersion: 'DELETE FROM law_versions WHERE jurisdiction = ? AND corpus = ? AND key = ? AND valid_from = ?',
  scanVersions: 'SELECT rowid, valid_from, valid_to, version FROM law_versions WHERE rowid > ? ORDER BY rowid LIMIT ?',

  keysBefore: `SELECT key, summary FROM law_histories WHERE jurisdiction = ? AND corpus = ? AND key < ?
    ORDER BY key DESC LIMIT ?`,
  keysAfter: 'SELECT key, summary FROM law_histories WHERE jurisdiction = ? AND corpus = ? AND key > ? ORDER BY key LIMIT ?',
  carriesAny: 'SELECT 1 FROM law_histories WHERE jurisdiction = ? LIMIT 1',
  carriesCorpus: 'SELECT 1 FROM law_histories WHERE jurisdiction = ? AND corpus = ? LIMIT 1',
  getHistories: `SELECT h.jurisdiction, h.corpus, h.key, h.rev, h.summary, h.history FROM json_each(?) AS w
    CROSS JOIN law_histories AS h ON h.jurisdiction = ? AND h.corpus = ? AND h.key = w.value`,
  historiesFrom: `SELECT jurisdiction, corpus, key, rev, summary, history FROM law_histories
    WHERE jurisdiction = ? AND corpus = ? AND key >= ? ORDER BY key LIMIT ?`,
  historiesAfter: `SELECT jurisdiction, corpus, key, rev, summary, history FROM law_histories
    WHERE jurisdiction = ? AND corpus = ? AND key > ? ORDER BY key LIMIT ?`,
  // A new history (rev 0) only where the key has none; an update only where the stored rev is still the one read.
  insertHistory: `INSERT INTO law_histories (jurisdiction, corpus, key, rev, summary, history) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (jurisdiction, corpus, key) DO NOTHING`,
  updateHistory: `UPDATE law_histories SET rev = ?, summary = ?, history = ?
    WHERE jurisdiction = ? AND corpus = ? AND key = ? AND rev = ?`,
  importHistory: `INSERT INTO law_histories (jurisdiction, corpus, key, rev, summary, history) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (jurisdiction, corpus, key) DO UPDATE SET rev = excluded.rev, summary = excluded.summary, history = excluded.history`,

  putEdition: `INSERT INTO law_editions (collection, date, id, edition) VALUES (?, ?, ?, ?)
    ON CONFLICT (collection, date, id) DO UPDATE SET edition = excluded.edition`,
  listEditions: 'SELECT edition FROM law_editions WHERE collection = ? ORDER BY date, id',
  ping: 'SELECT 1 FROM law_versions LIMIT 1',
} as const;

interface VersionRow {
  valid_from: string;
  valid_to: string;
  version: string;
}

interface SummaryRow {
  valid_from: string;
  valid_to: string;
  summary: string;
}

interface HistoryRow {
  jurisdiction: string;
  corpus: Corpus;
  key: string;
  rev: number;
  summary: string;
  history: string;
}

/** A version's summary as stored: without validFrom and validTo, which are columns. */
type StoredSummary = Omit<VersionSummary, 'validFrom' | 'validTo'>;

/** The stored JSON with the row's validity added to it (set on the parsed object: no copy of a whole version). */
function versionOf(row: VersionRow): SectionVersion {
  const version = JSON.parse(row.version) as SectionVersion;
  version.validFrom = row.valid_from;
  version.validTo = row.valid_to;
  return version;
}

function summaryOf(row: SummaryRow): VersionSummary {
  const s = JSON.parse(row.summary) as StoredSummary;
  return {
    citation: s.citation,
    catchline: s.catchline,
    status: s.status,
    validFrom: row.valid_from,
    validTo: row.valid_to,
    temporalBasis: s.temporalBasis,
    versionLabel: s.versionLabel,
    contentHash: s.contentHash,
  };
}

const historyOf = (row: HistoryRow): KeyHistory => ({
  jurisdiction: row.jurisdiction,
  corpus: row.corpus,
  key: row.key,
  ...(JSON.parse(row.history) as Omit<KeyHistory, 'jurisdiction' | 'corpus' | 'key' | 'rev' | 'summary'>),
  rev: row.rev,
  summary: JSON.parse(row.summary) as KeyHistory['summary'],
});

/** The columns and JSON texts of a version's row, in the order of SQL.putVersion. */
function versionRow(v: SectionVersion): [string, string, string, string, string, string, string] {
  const { validFrom, validTo, ...rest } = v;
  const summary: StoredSummary = {
    citation: v.citation,
    catchline: v.catchline,
    status: v.status,
    temporalBasis: v.temporalBasis,
    versionLabel: v.provenance.versionLabel,
    contentHash: v.provenance.contentHash,
  };
  const { jurisdiction, corpus, key } = v.citation;
  return [jurisdiction, corpus, key, validFrom, validTo, JSON.stringify(summary), JSON.stringify(rest)];
}

const editionRow = (e: EditionRecord): [string, string, string, string] => [e.collection, e.date, e.id, JSON.stringify(e)];

/** The JSON texts of a history's row (summary, the rest), without what its columns hold. */
function historyTexts(h: KeyHistory): [string, string] {
  const { jurisdiction: _j, corpus: _c, key: _k, rev: _r, summary, ...rest } = h;
  return [JSON.stringify(summary), JSON.stringify(rest)];
}

const describeHistory = (h: Pick<KeyHistory, 'jurisdiction' | 'corpus' | 'key'>): string =>
  `key history ${h.jurisdiction}#${h.corpus}#${h.key}`;

/**
 * The contract bounds a history at DynamoDB's item limit, counted on the item the DynamoDB adapter would store (its
 * keys, kind and fields, at the next revision), so that every adapter accepts the same histories.
 */
function assertHistoryFits(h: KeyHistory): void {
  const item = { pk: `hist#${h.jurisdiction}#${h.corpus}`, sk: h.key, itemKind: 'history', ...h, rev: h.rev + 1 };
  assertItemFits(item, describeHistory(h));
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class SqliteVersionStore implements VersionStore {
  constructor(private readonly db: SqliteDatabase) {}

  async findInForce(ref: SectionRef, date: string): Promise<SectionVersion | null> {
    const row = this.db.read(
      () => this.db.prepare(SQL.findInForce).get(ref.jurisdiction, ref.corpus, ref.key, addDays(date, 1)) as VersionRow | undefined,
    );
    return row && date < localDateOf(row.valid_to) ? versionOf(row) : null;
  }

  async listVersions(ref: SectionRef): Promise<VersionSummary[]> {
    const rows = this.db.read(() => this.db.prepare(SQL.listVersions).all(ref.jurisdiction, ref.corpus, ref.key) as SummaryRow[]);
    return rows.map(summaryOf);
  }

  async getVersion(ref: SectionRef, validFrom: string): Promise<SectionVersion | null> {
    const row = this.db.read(
      () => this.db.prepare(SQL.getVersion).get(ref.jurisdiction, ref.corpus, ref.key, validFrom) as VersionRow | undefined,
    );
    return row ? versionOf(row) : null;
  }

  async getSummaries(wanted: readonly { ref: SectionRef; validFrom: string }[]): Promise<(VersionSummary | null)[]> {
    const out: (VersionSummary | null)[] = wanted.map(() => null);
    for (const [n, part] of chunk(wanted, KEYS_PER_STATEMENT).entries()) {
      const keys = JSON.stringify(part.map(({ ref, validFrom }) => [ref.jurisdiction, ref.corpus, ref.key, validFrom]));
      const rows = this.db.read(() => this.db.prepare(SQL.getSummaries).all(keys) as (SummaryRow & { i: number })[]);
      for (const row of rows) out[n * KEYS_PER_STATEMENT + row.i] = summaryOf(row);
    }
    return out;
  }

  async nearbyKeys(jurisdiction: string, corpus: Corpus, key: string, limit: number): Promise<string[]> {
    return (await this.nearbyKeySummaries(jurisdiction, corpus, key, limit)).map((near) => near.key);
  }

  async nearbyKeySummaries(jurisdiction: string, corpus: Corpus, key: string, limit: number): Promise<NearbyKey[]> {
    if (limit <= 0) return [];
    type Row = { key: string; summary: string };
    const [before, after] = this.db.read((): [Row[], Row[]] => [
      this.db.prepare(SQL.keysBefore).all(jurisdiction, corpus, key, limit) as Row[],
      this.db.prepare(SQL.keysAfter).all(jurisdiction, corpus, key, limit) as Row[],
    ]);
    // Alternate sides, nearest first; a side that runs out leaves its share to the other (as the DynamoDB adapter).
    let fromBefore = 0;
    let fromAfter = 0;
    while (fromBefore + fromAfter < limit && (fromBefore < before.length || fromAfter < after.length)) {
      if (fromBefore < before.length && (fromBefore <= fromAfter || fromAfter >= after.length)) fromBefore++;
      else fromAfter++;
    }
    return [...before.slice(0, fromBefore).reverse(), ...after.slice(0, fromAfter)].map((row) => ({
      key: row.key,
      summary: JSON.parse(row.summary) as KeyHistory['summary'],
    }));
  }

  async carries(jurisdiction: string, corpus?: Corpus): Promise<boolean> {
    const row = this.db.read(() =>
      corpus ? this.db.prepare(SQL.carriesCorpus).get(jurisdiction, corpus) : this.db.prepare(SQL.carriesAny).get(jurisdiction),
    );
    return row !== undefined;
  }

  async getHistories(jurisdiction: string, corpus: Corpus, keys: readonly string[]): Promise<Map<string, KeyHistory>> {
    const found = new Map<string, KeyHistory>();
    for (const part of chunk([...new Set(keys)], KEYS_PER_STATEMENT)) {
      const rows = this.db.read(() => this.db.prepare(SQL.getHistories).all(JSON.stringify(part), jurisdiction, corpus) as HistoryRow[]);
      for (const row of rows) found.set(row.key, historyOf(row));
    }
    return found;
  }

  async *historiesWithPrefix(jurisdiction: string, corpus: Corpus, prefix: string): AsyncIterable<KeyHistory> {
    for await (const history of this.historyPages(jurisdiction, corpus, prefix)) {
      if (!history.key.startsWith(prefix)) return;
      yield history;
    }
  }

  async putHistory(history: KeyHistory): Promise<void> {
    assertHistoryFits(history);
    const stored = this.db.write(() => this.writeHistory(history));
    if (!stored) throw new ConcurrentUpdateError(`${describeHistory(history)} is no longer at revision ${history.rev}`);
  }

  /** Every history in one transaction: each whose stored rev moved is left out, the others are all written or none. */
  async putHistories(histories: readonly KeyHistory[]): Promise<string[]> {
    for (const h of histories) assertHistoryFits(h);
    return this.db.write(() => histories.filter((h) => !this.writeHistory(h)).map((h) => h.key));
  }

  /** The conditional write of one history at rev + 1; false when the stored rev is no longer history.rev. */
  private writeHistory(h: KeyHistory): boolean {
    const [summary, rest] = historyTexts(h);
    const changes =
      h.rev === 0
        ? this.db.prepare(SQL.insertHistory).run(h.jurisdiction, h.corpus, h.key, 1, summary, rest).changes
        : this.db.prepare(SQL.updateHistory).run(h.rev + 1, summary, rest, h.jurisdiction, h.corpus, h.key, h.rev).changes;
    return changes === 1;
  }

  /** In order, in one transaction: a setValidTo of a version not stored fails the call and nothing of it is written. */
  async applyWrites(writes: readonly StoreWrite[]): Promise<void> {
    if (writes.length === 0) return;
    // The JSON texts are made before the transaction: the write lock is held for the statements only.
    const planned = writes.map((write) => ({ write, row: write.kind === 'put' ? versionRow(write.version) : null }));
    this.db.write(() => {
      for (const { write: w, row } of planned) {
        if (row) {
          this.db.prepare(SQL.putVersion).run(...row);
        } else if (w.kind === 'delete') {
          this.db.prepare(SQL.deleteVersion).run(w.ref.jurisdiction, w.ref.corpus, w.ref.key, w.validFrom);
        } else if (w.kind === 'setValidTo') {
          const { changes } = this.db.prepare(SQL.setValidTo).run(w.validTo, w.ref.jurisdiction, w.ref.corpus, w.ref.key, w.validFrom);
          if (changes !== 1) throw new Error(`setValidTo: no stored version ${refId(w.ref)} valid from ${w.validFrom}`);
        }
      }
    });
  }

  async putEdition(edition: EditionRecord): Promise<void> {
    const row = editionRow(edition);
    this.db.write(() => this.db.prepare(SQL.putEdition).run(...row));
  }

  async listEditions(collection: string): Promise<EditionRecord[]> {
    const rows = this.db.read(() => this.db.prepare(SQL.listEditions).pluck().all(collection) as string[]);
    return rows.map((text) => JSON.parse(text) as EditionRecord);
  }

  /** The histories of the catalog's jurisdiction and corpus pairs, a page of keys at a time. */
  async *scanHistories(): AsyncIterable<KeyHistory> {
    const pairs = new Map(COLLECTIONS.map((c) => [`${c.jurisdiction}#${c.corpus}`, c]));
    for (const { jurisdiction, corpus } of pairs.values()) yield* this.historyPages(jurisdiction, corpus, '');
  }

  async *scanVersions(): AsyncIterable<SectionVersion> {
    let after = 0;
    for (;;) {
      const rows = this.db.read(() => this.db.prepare(SQL.scanVersions).all(after, SCAN_PAGE_ROWS) as (VersionRow & { rowid: number })[]);
      for (const row of rows) yield versionOf(row);
      const last = rows.at(-1);
      if (!last || rows.length < SCAN_PAGE_ROWS) return;
      after = last.rowid;
    }
  }

  async ping(): Promise<void> {
    this.db.ping();
    this.db.read(() => this.db.prepare(SQL.ping).get());
  }

  /** The histories of one corpus from `from` on in key order, a page at a time (each page its own read). */
  private async *historyPages(jurisdiction: string, corpus: Corpus, from: string): AsyncIterable<KeyHistory> {
    let rows = this.db.read(() => this.db.prepare(SQL.historiesFrom).all(jurisdiction, corpus, from, SCAN_PAGE_ROWS) as HistoryRow[]);
    for (;;) {
      for (const row of rows) yield historyOf(row);
      const last = rows.at(-1);
      if (!last || rows.length < SCAN_PAGE_ROWS) return;
      rows = this.db.read(() => this.db.prepare(SQL.historiesAfter).all(jurisdiction, corpus, last.key, SCAN_PAGE_ROWS) as HistoryRow[]);
    }
  }
}

// ---- the upgrade of a data dir whose law was in the DynamoDB tables --------------------------------------------

type ImportedItem =
  | { kind: 'version'; version: SectionVersion }
  | { kind: 'history'; history: KeyHistory }
  | { kind: 'edition'; edition: EditionRecord };

const isString = (value: unknown): value is string => typeof value === 'string';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The domain object of an item as DynamoVersionStore wrote it (pk, sk, itemKind beside the fields), or null. */
function recognize(item: Record<string, unknown>): ImportedItem | null {
  const { pk, sk, itemKind, ...rest } = item;
  if (!isString(pk) || !isString(sk)) return null;
  if (itemKind === 'version') {
    const citation = rest.citation;
    if (!isObject(citation) || !isString(citation.jurisdiction) || !isString(citation.corpus) || !isString(citation.key)) return null;
    if (!isString(rest.validTo) || rest.validFrom !== sk || pk !== refId(citation as unknown as SectionRef)) return null;
    if (!isObject(rest.provenance)) return null;
    return { kind: 'version', version: rest as unknown as SectionVersion };
  }
  if (itemKind === 'history') {
    if (!isString(rest.jurisdiction) || !isString(rest.corpus) || rest.key !== sk) return null;
    if (pk !== `hist#${rest.jurisdiction}#${rest.corpus}` || !Number.isInteger(rest.rev) || !isObject(rest.summary)) return null;
    return { kind: 'history', history: rest as unknown as KeyHistory };
  }
  if (itemKind === 'edition') {
    if (!isString(rest.collection) || !isString(rest.date) || !isString(rest.id)) return null;
    if (pk !== `edition#${rest.collection}` || sk !== `${rest.date}#${rest.id}`) return null;
    return { kind: 'edition', edition: rest as unknown as EditionRecord };
  }
  return null;
}

/**
 * Writes the version, history and edition items of a page scanned from the old `versions` table (document-client
 * items, as DynamoVersionStore wrote them) into law.sqlite, in one transaction; returns how many it took. Each is
 * stored as the item holds it (a history at its stored revision), replacing what the store held at its key, so a
 * page imported again changes nothing. Items of other tables, or of no kind this store writes, are left alone.
 */
export function importDynamoItems(
  db: SqliteDatabase,
  table: 'versions' | 'accounts' | 'meters' | 'ops',
  items: readonly Record<string, unknown>[],
): number {
  if (table !== 'versions') return 0;
  const taken = items.map(recognize).filter((item) => item !== null);
  if (taken.length === 0) return 0;
  db.write(() => {
    for (const item of taken) {
      if (item.kind === 'version') db.prepare(SQL.putVersion).run(...versionRow(item.version));
      else if (item.kind === 'edition') db.prepare(SQL.putEdition).run(...editionRow(item.edition));
      else {
        const h = item.history;
        db.prepare(SQL.importHistory).run(h.jurisdiction, h.corpus, h.key, h.rev, ...historyTexts(h));
      }
    }
  });
  return taken.length;
}
