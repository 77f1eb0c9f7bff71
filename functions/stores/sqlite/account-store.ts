import type { AccountStore, ApiKeyRecord } from '#accounts/ports.ts';
import { ConcurrentUpdateError } from '#shared/errors.ts';
import type { SqliteDatabase, SqliteSchema } from './database.ts';

/**
 * The API keys in accounts.sqlite: one row per key, found by its hash (what every keyed request reads, one point
 * read) or by its id, both unique. The record is kept as JSON beside the columns that are queried; `revoked_at` is
 * the authority on revocation, so a revoke is one conditional UPDATE and its first time stays.
 */
export const ACCOUNT_SCHEMA: SqliteSchema = {
  name: 'accounts',
  steps: [
    [
      `CREATE TABLE api_keys (
        hash TEXT PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        record TEXT NOT NULL
      ) STRICT`,
      'CREATE INDEX api_keys_by_creation ON api_keys (created_at, id)',
    ],
  ],
};

const PAGE = 500;

type KeyRow = { record: string; revoked_at: string | null };

const recordOf = (row: KeyRow): ApiKeyRecord => ({ ...(JSON.parse(row.record) as ApiKeyRecord), revokedAt: row.revoked_at });

/** The JSON kept for a record: everything but `revokedAt`, which has its own column. */
function jsonOf(record: ApiKeyRecord): string {
  const { revokedAt: _revokedAt, ...rest } = record;
  return JSON.stringify(rest);
}

export class SqliteAccountStore implements AccountStore {
  constructor(private readonly db: SqliteDatabase) {}

  async createKey(record: ApiKeyRecord): Promise<void> {
    const inserted = this.db.write(() => {
      const out = this.db
        .prepare(`INSERT INTO api_keys (hash, id, created_at, revoked_at, record) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
        .run(record.hash, record.id, record.createdAt, record.revokedAt, jsonOf(record));
      if (out.changes === 1) return true;
      return this.db.prepare('SELECT 1 FROM api_keys WHERE id = ?').get(record.id) ? 'id' : 'hash';
    });
    if (inserted === 'id') throw new ConcurrentUpdateError(`a key with id ${record.id} already exists`);
    if (inserted === 'hash') throw new ConcurrentUpdateError(`a key with this hash already exists (id ${record.id} not created)`);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const row = this.db.read(() => this.db.prepare('SELECT record, revoked_at FROM api_keys WHERE hash = ?').get(hash)) as
      | KeyRow
      | undefined;
    return row ? recordOf(row) : null;
  }

  async getById(id: string): Promise<ApiKeyRecord | null> {
    const row = this.db.read(() => this.db.prepare('SELECT record, revoked_at FROM api_keys WHERE id = ?').get(id)) as KeyRow | undefined;
    return row ? recordOf(row) : null;
  }

  /** Oldest first (then by id), read in pages by creation. */
  async listKeys(): Promise<ApiKeyRecord[]> {
    const records: ApiKeyRecord[] = [];
    let after: { created_at: string; id: string } | null = null;
    for (;;) {
      const from: { created_at: string; id: string } | null = after;
      const rows = this.db.read(() =>
        from
          ? this.db
              .prepare(
                `SELECT created_at, id, record, revoked_at FROM api_keys WHERE (created_at, id) > (?, ?)
                 ORDER BY created_at, id LIMIT ${PAGE}`,
              )
              .all(from.created_at, from.id)
          : this.db.prepare(`SELECT created_at, id, record, revoked_at FROM api_keys ORDER BY created_at, id LIMIT ${PAGE}`).all(),
      ) as Array<KeyRow & { created_at: string; id: string }>;
      records.push(...rows.map(recordOf));
      if (rows.length < PAGE) return records;
      after = rows[rows.length - 1]!;
    }
  }

  async revoke(id: string, at: string): Promise<ApiKeyRecord | null> {
    const row = this.db.write(() => {
      // Only the first revocation counts: a repeated call changes nothing and returns the record as it is.
      this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id);
      return this.db.prepare('SELECT record, revoked_at FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
    });
    return row ? recordOf(row) : null;
  }

  async ping(): Promise<void> {
    this.db.ping();
  }
}

/**
 * The upgrade of an old data dir: takes the key items of a page of the DynamoDB accounts table (pk `key#${hash}`,
 * sk 'key', the whole record) and the id items (pk 'keyid', which the `id` column replaces); a key already here is
 * left as it is, so importing twice changes nothing. Returns how many items it took.
 */
export function importDynamoItems(
  db: SqliteDatabase,
  table: 'versions' | 'accounts' | 'meters' | 'ops',
  items: readonly Record<string, unknown>[],
): number {
  if (table !== 'accounts') return 0;
  return db.write(() => {
    let taken = 0;
    const insert = db.prepare(
      'INSERT INTO api_keys (hash, id, created_at, revoked_at, record) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    for (const item of items) {
      const { pk, sk, ...fields } = item;
      if (pk === 'keyid' && typeof sk === 'string') {
        taken++;
      } else if (typeof pk === 'string' && pk.startsWith('key#') && sk === 'key') {
        const record = { ...fields, revokedAt: (fields.revokedAt as string | null | undefined) ?? null } as ApiKeyRecord;
        insert.run(record.hash, record.id, record.createdAt, record.revokedAt, jsonOf(record));
        taken++;
      }
    }
    return taken;
  });
}
