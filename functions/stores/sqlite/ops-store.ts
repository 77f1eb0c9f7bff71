import type { AuditFinding, AuditRun, CoverageCache, HealthVerdict, LeaseRecord, OpsStore, StoredAuditRun } from '#ops/ports.ts';
import { findingOf } from '#ops/stored-finding.ts';
import type { SqliteDatabase, SqliteSchema } from './database.ts';

/**
 * Operational state in accounts.sqlite: the coverage cache with its dirty and ingest marks, audit runs, the health
 * verdict, leases, quotas and markers. Every conditional write (a lease, a take-over, a quota) is one statement, so it
 * is exact whatever other connections do; putCoverage reads and writes in one IMMEDIATE transaction.
 *
 *   ops_coverage  one row: the cache's fields as JSON (null while only the marks exist), dirty_since, ingesting_since
 *   ops_audits    one row per jurisdiction and instant (epoch ms), the run and its findings apart; kept 400 days
 *   ops_leases    one row per name: owner, until as given and as epoch ms; dropped a day after it runs out
 *   ops_quotas    one row per name: used, and what the last take granted; dropped a week after its last take
 *   ops_health, ops_markers
 * As in accounts.sqlite's meters, expired rows go a few at a time with the writes of their kind.
 */
export const OPS_SCHEMA: SqliteSchema = {
  name: 'ops',
  steps: [
    [
      `CREATE TABLE ops_coverage (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        cache TEXT,
        dirty_since TEXT,
        ingesting_since TEXT
      ) STRICT`,
      `CREATE TABLE ops_audits (
        jurisdiction TEXT NOT NULL,
        ran_at_ms INTEGER NOT NULL,
        run TEXT NOT NULL,
        findings TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (jurisdiction, ran_at_ms)
      ) STRICT, WITHOUT ROWID`,
      'CREATE INDEX ops_audits_expiry ON ops_audits (expires_at)',
      'CREATE TABLE ops_health (id INTEGER PRIMARY KEY CHECK (id = 1), verdict TEXT NOT NULL) STRICT',
      `CREATE TABLE ops_leases (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        until TEXT NOT NULL,
        until_ms INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT`,
      'CREATE INDEX ops_leases_expiry ON ops_leases (expires_at)',
      `CREATE TABLE ops_quotas (
        name TEXT PRIMARY KEY,
        used INTEGER NOT NULL,
        granted INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT`,
      'CREATE INDEX ops_quotas_expiry ON ops_quotas (expires_at)',
      'CREATE TABLE ops_markers (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT',
    ],
  ],
};

export interface SqliteOpsStoreOptions {
  /** The clock quotas expire by (epoch ms; a take carries no time of its own). Default Date.now. */
  now?: () => number;
}

const DAY_MS = 86_400_000;
const AUDIT_RETENTION_MS = 400 * DAY_MS;
const LEASE_RETENTION_MS = 1 * DAY_MS;
const QUOTA_RETENTION_MS = 7 * DAY_MS;
const SWEEP = 4;
const PAGE = 500;

function instantOf(iso: string, what: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`${what} '${iso}' is not an ISO 8601 timestamp`);
  return ms;
}

const epochSeconds = (ms: number): number => Math.floor(ms / 1000);

type CoverageRow = { cache: string | null; dirty_since: string | null; ingesting_since: string | null };

function coverageOf(row: CoverageRow | undefined): CoverageCache | null {
  if (!row?.cache) return null;
  return {
    ...(JSON.parse(row.cache) as Omit<CoverageCache, 'dirtySince' | 'ingestingSince'>),
    dirtySince: row.dirty_since,
    ...(row.ingesting_since !== null && { ingestingSince: row.ingesting_since }),
  };
}

/** The cache's fields as kept in `cache`: the marks have their columns. */
function cacheJson(cache: Record<string, unknown>): string {
  const { dirtySince: _d, ingestingSince: _i, ...numbers } = cache;
  return JSON.stringify(numbers);
}

export class SqliteOpsStore implements OpsStore {
  private readonly now: () => number;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteOpsStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  private coverageRow(): CoverageRow | undefined {
    return this.db.prepare('SELECT cache, dirty_since, ingesting_since FROM ops_coverage WHERE id = 1').get() as CoverageRow | undefined;
  }

  async getCoverage(): Promise<CoverageCache | null> {
    return this.db.read(() => coverageOf(this.coverageRow()));
  }

  async putCoverage(cache: CoverageCache, computeStartedAt?: string): Promise<CoverageCache> {
    return this.db.write(() => {
      const row = this.coverageRow();
      let dirtySince = cache.dirtySince;
      if (computeStartedAt !== undefined) {
        const clean = !row?.ingesting_since && (row?.dirty_since == null || row.dirty_since < computeStartedAt);
        // Unless no ingest is under way (or died) and none dirtied the cache after these numbers started, the stored
        // mark stays; with none stored, dirty from when these numbers started, as they may predate the change.
        if (!clean) dirtySince = row?.dirty_since ?? computeStartedAt;
      }
      this.db
        .prepare(
          `INSERT INTO ops_coverage (id, cache, dirty_since) VALUES (1, ?, ?)
           ON CONFLICT (id) DO UPDATE SET cache = excluded.cache, dirty_since = excluded.dirty_since`,
        )
        .run(cacheJson(cache as unknown as Record<string, unknown>), dirtySince);
      return coverageOf(this.coverageRow())!;
    });
  }

  async markIngestStarted(at: string): Promise<void> {
    // Both marks in one write; the earliest ingest and the earliest change count, as an earlier ingest may have died.
    this.db.write(() =>
      this.db
        .prepare(
          `INSERT INTO ops_coverage (id, cache, dirty_since, ingesting_since) VALUES (1, NULL, :at, :at)
           ON CONFLICT (id) DO UPDATE SET
             dirty_since = coalesce(dirty_since, excluded.dirty_since), ingesting_since = coalesce(ingesting_since, excluded.ingesting_since)`,
        )
        .run({ at }),
    );
  }

  async markIngestCompleted(at: string): Promise<void> {
    this.db.write(() => this.db.prepare('UPDATE ops_coverage SET dirty_since = ?, ingesting_since = NULL WHERE id = 1').run(at));
  }

  async putAuditRun(stored: StoredAuditRun): Promise<void> {
    const ranAtMs = instantOf(stored.run.ranAt, 'audit run ranAt');
    this.db.write(() => {
      this.db
        .prepare(
          `INSERT INTO ops_audits (jurisdiction, ran_at_ms, run, findings, expires_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (jurisdiction, ran_at_ms) DO UPDATE SET run = excluded.run, findings = excluded.findings, expires_at = excluded.expires_at`,
        )
        .run(
          stored.run.jurisdiction,
          ranAtMs,
          JSON.stringify(stored.run),
          JSON.stringify(stored.findings),
          epochSeconds(ranAtMs + AUDIT_RETENTION_MS),
        );
      this.db
        .prepare(
          `DELETE FROM ops_audits WHERE (jurisdiction, ran_at_ms) IN
             (SELECT jurisdiction, ran_at_ms FROM ops_audits WHERE expires_at < ? ORDER BY expires_at LIMIT ${SWEEP})`,
        )
        .run(epochSeconds(ranAtMs));
    });
  }

  async latestAuditRun(jurisdiction: string): Promise<StoredAuditRun | null> {
    const row = this.db.read(() =>
      this.db.prepare('SELECT run, findings FROM ops_audits WHERE jurisdiction = ? ORDER BY ran_at_ms DESC LIMIT 1').get(jurisdiction),
    ) as { run: string; findings: string } | undefined;
    return row ? { run: JSON.parse(row.run) as AuditRun, findings: JSON.parse(row.findings) as AuditFinding[] } : null;
  }

  async auditHistory(jurisdiction: string, limit: number): Promise<AuditRun[]> {
    const runs: AuditRun[] = [];
    let before = Number.MAX_SAFE_INTEGER;
    while (runs.length < limit) {
      const from = before;
      const want = Math.min(PAGE, limit - runs.length);
      const rows = this.db.read(() =>
        this.db
          .prepare('SELECT ran_at_ms, run FROM ops_audits WHERE jurisdiction = ? AND ran_at_ms < ? ORDER BY ran_at_ms DESC LIMIT ?')
          .all(jurisdiction, from, want),
      ) as Array<{ ran_at_ms: number; run: string }>;
      for (const r of rows) runs.push(JSON.parse(r.run) as AuditRun);
      if (rows.length < want) break;
      before = rows[rows.length - 1]!.ran_at_ms;
    }
    return runs;
  }

  async getHealthVerdict(): Promise<HealthVerdict | null> {
    const verdict = this.db.read(() => this.db.prepare('SELECT verdict FROM ops_health WHERE id = 1').pluck().get()) as string | undefined;
    return verdict ? (JSON.parse(verdict) as HealthVerdict) : null;
  }

  async putHealthVerdict(verdict: HealthVerdict): Promise<void> {
    this.db.write(() =>
      this.db
        .prepare('INSERT INTO ops_health (id, verdict) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET verdict = excluded.verdict')
        .run(JSON.stringify(verdict)),
    );
  }

  async acquireLease(name: string, owner: string, until: string, now: string): Promise<boolean> {
    const untilMs = instantOf(until, 'lease until');
    const nowMs = instantOf(now, 'lease now');
    return this.db.write(() => {
      this.db
        .prepare(
          `DELETE FROM ops_leases WHERE name IN (SELECT name FROM ops_leases WHERE expires_at < ? ORDER BY expires_at LIMIT ${SWEEP})`,
        )
        .run(epochSeconds(nowMs));
      // Instants compare as numbers: `until` and `now` may be written with different offsets or precision.
      const out = this.db
        .prepare(
          `INSERT INTO ops_leases (name, owner, until, until_ms, expires_at) VALUES (:name, :owner, :until, :untilMs, :expires)
           ON CONFLICT (name) DO UPDATE SET
             owner = excluded.owner, until = excluded.until, until_ms = excluded.until_ms, expires_at = excluded.expires_at
           WHERE until_ms < :now OR owner = :owner`,
        )
        .run({ name, owner, until, untilMs, expires: epochSeconds(untilMs + LEASE_RETENTION_MS), now: nowMs });
      return out.changes === 1;
    });
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    // Someone else's lease (ours expired and was taken) or none at all: nothing of ours to release.
    this.db.write(() => this.db.prepare('DELETE FROM ops_leases WHERE name = ? AND owner = ?').run(name, owner));
  }

  async getLease(name: string): Promise<LeaseRecord | null> {
    const row = this.db.read(() => this.db.prepare('SELECT owner, until FROM ops_leases WHERE name = ?').get(name)) as
      | LeaseRecord
      | undefined;
    return row ? { owner: row.owner, until: row.until } : null;
  }

  async takeOverLease(name: string, from: string, owner: string, until: string): Promise<boolean> {
    const untilMs = instantOf(until, 'lease until');
    const out = this.db.write(() =>
      this.db
        .prepare('UPDATE ops_leases SET owner = ?, until = ?, until_ms = ?, expires_at = ? WHERE name = ? AND owner = ?')
        .run(owner, until, untilMs, epochSeconds(untilMs + LEASE_RETENTION_MS), name, from),
    );
    return out.changes === 1;
  }

  async takeQuota(name: string, n: number, limit: number): Promise<{ granted: number; used: number }> {
    const now = this.now();
    return this.db.write(() => {
      this.db
        .prepare(
          `DELETE FROM ops_quotas WHERE name IN (SELECT name FROM ops_quotas WHERE expires_at < ? ORDER BY expires_at LIMIT ${SWEEP})`,
        )
        .run(epochSeconds(now));
      // One statement grants what is left (right-hand sides read the row before the update) and says what it granted.
      const taken = this.db
        .prepare(
          `INSERT INTO ops_quotas (name, used, granted, expires_at) SELECT :name, min(:n, :limit), min(:n, :limit), :expires
             WHERE min(:n, :limit) > 0
           ON CONFLICT (name) DO UPDATE SET
             used = used + min(:n, :limit - used), granted = min(:n, :limit - used), expires_at = :expires
           WHERE min(:n, :limit - used) > 0
           RETURNING granted, used`,
        )
        .get({ name, n, limit, expires: epochSeconds(now + QUOTA_RETENTION_MS) }) as { granted: number; used: number } | undefined;
      return taken ?? { granted: 0, used: this.usedOf(name) };
    });
  }

  private usedOf(name: string): number {
    return (this.db.prepare('SELECT used FROM ops_quotas WHERE name = ?').pluck().get(name) as number | undefined) ?? 0;
  }

  async quotaUsed(name: string): Promise<number> {
    return this.db.read(() => this.usedOf(name));
  }

  async getMarker(name: string): Promise<string | null> {
    const value = this.db.read(() => this.db.prepare('SELECT value FROM ops_markers WHERE name = ?').pluck().get(name)) as
      | string
      | undefined;
    return value ?? null;
  }

  async putMarker(name: string, value: string): Promise<void> {
    this.db.write(() =>
      this.db
        .prepare('INSERT INTO ops_markers (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value')
        .run(name, value),
    );
  }

  async ping(): Promise<void> {
    this.db.ping();
  }
}

type Item = Record<string, unknown>;

/**
 * The upgrade of an old data dir: takes the ops items of a page of the DynamoDB ops table (coverage, health, audit
 * runs, leases, quotas, markers) and leaves the filing-format records there (pk `format…`) to their own importer.
 * What is already here stays as it is: importing twice changes nothing.
 */
export function importDynamoItems(db: SqliteDatabase, table: 'versions' | 'accounts' | 'meters' | 'ops', items: readonly Item[]): number {
  if (table !== 'ops') return 0;
  return db.write(() => {
    let taken = 0;
    for (const item of items) {
      const { pk, sk, expiresAt, ...fields } = item;
      if (typeof pk !== 'string' || typeof sk !== 'string') continue;
      if (pk === 'coverage' && sk === 'current') {
        // The fields of the cache, or only the ingest marks before any numbers were computed.
        db.prepare('INSERT INTO ops_coverage (id, cache, dirty_since, ingesting_since) VALUES (1, ?, ?, ?) ON CONFLICT DO NOTHING').run(
          fields.records ? cacheJson(fields) : null,
          (fields.dirtySince as string | null | undefined) ?? null,
          (fields.ingestingSince as string | undefined) ?? null,
        );
      } else if (pk === 'health' && sk === 'current') {
        db.prepare('INSERT INTO ops_health (id, verdict) VALUES (1, ?) ON CONFLICT DO NOTHING').run(JSON.stringify(fields));
      } else if (pk.startsWith('audit#')) {
        const run = fields.run as AuditRun;
        const ranAtMs = instantOf(run.ranAt, 'audit run ranAt');
        const findings = ((fields.findings as Item[] | undefined) ?? []).map(findingOf);
        db.prepare(
          'INSERT INTO ops_audits (jurisdiction, ran_at_ms, run, findings, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
        ).run(
          pk.slice('audit#'.length),
          ranAtMs,
          JSON.stringify(run),
          JSON.stringify(findings),
          typeof expiresAt === 'number' ? expiresAt : epochSeconds(ranAtMs + AUDIT_RETENTION_MS),
        );
      } else if (pk === 'lease') {
        const until = fields.until as string;
        const untilMs = typeof fields.untilMs === 'number' ? fields.untilMs : instantOf(until, 'lease until');
        db.prepare('INSERT INTO ops_leases (name, owner, until, until_ms, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING').run(
          sk,
          fields.owner as string,
          until,
          untilMs,
          typeof expiresAt === 'number' ? expiresAt : epochSeconds(untilMs + LEASE_RETENTION_MS),
        );
      } else if (pk === 'quota') {
        const used = typeof fields.used === 'number' ? fields.used : 0;
        db.prepare('INSERT INTO ops_quotas (name, used, granted, expires_at) VALUES (?, ?, 0, ?) ON CONFLICT DO NOTHING').run(
          sk,
          used,
          typeof expiresAt === 'number' ? expiresAt : epochSeconds(Date.now() + QUOTA_RETENTION_MS),
        );
      } else if (pk === 'marker' && typeof fields.value === 'string') {
        db.prepare('INSERT INTO ops_markers (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING').run(sk, fields.value);
      } else {
        continue;
      }
      taken++;
    }
    return taken;
  });
}
