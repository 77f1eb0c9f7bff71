import type { ChargeRequest, ChargeResult, MeterStore, MeterUsage, RefundRequest, UsageRecord } from '#accounts/ports.ts';
import type { MeterWindows } from '#accounts/windows.ts';
import type { SqliteDatabase, SqliteSchema } from './database.ts';

/**
 * The meter's counters and usage records in accounts.sqlite. A charge runs in an IMMEDIATE transaction (with the
 * other charges of its turn of the event loop, each in a savepoint of its own: SqliteDatabase.writeGrouped): it holds
 * the file's write lock from its first read, so no other connection (in this process or another) counts in between, and
 * it either counts the call in its minute, day and month and remembers its request id, or writes nothing. The counts
 * themselves are conditional upserts (`… WHERE used + n <= cap RETURNING`), so they can never go over a ceiling.
 *
 *   meter_months   a key's UTC month: its units, and the minute the key was last counted in with its requests;
 *                  kept `counterDays` past the month's end
 *   meter_days     units of each day of that month (deleted with it)
 *   meter_charges  one row per counted call: where it was counted, its units, the answer it got, whether refunded;
 *                  what makes a retried charge or refund count once (kept a day past its minute)
 *   usage_records  one row per keyed call, in the DynamoDB item's order (`at#requestId`), kept `usageDays`
 *
 * Expired rows go a few at a time with each write that adds rows (by an index on expiry), measured against the
 * time that write speaks of, so the file stops growing once traffic is steady and a quiet store is never touched.
 */
export const METER_SCHEMA: SqliteSchema = {
  name: 'meters',
  steps: [
    [
      `CREATE TABLE meter_months (
        key_id TEXT NOT NULL,
        month TEXT NOT NULL,
        units INTEGER NOT NULL,
        minute TEXT NOT NULL,
        requests INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (key_id, month)
      ) STRICT, WITHOUT ROWID`,
      'CREATE INDEX meter_months_expiry ON meter_months (expires_at)',
      `CREATE TABLE meter_days (
        key_id TEXT NOT NULL,
        month TEXT NOT NULL,
        day TEXT NOT NULL,
        units INTEGER NOT NULL,
        PRIMARY KEY (key_id, month, day),
        FOREIGN KEY (key_id, month) REFERENCES meter_months (key_id, month) ON DELETE CASCADE
      ) STRICT, WITHOUT ROWID`,
      `CREATE TABLE meter_charges (
        key_id TEXT NOT NULL,
        request_id TEXT NOT NULL,
        month TEXT NOT NULL,
        day TEXT NOT NULL,
        units INTEGER NOT NULL,
        usage_minute INTEGER NOT NULL,
        usage_day INTEGER NOT NULL,
        usage_month INTEGER NOT NULL,
        refunded INTEGER NOT NULL DEFAULT 0,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (key_id, request_id)
      ) STRICT, WITHOUT ROWID`,
      'CREATE INDEX meter_charges_expiry ON meter_charges (expires_at)',
      `CREATE TABLE usage_records (
        key_id TEXT NOT NULL,
        date TEXT NOT NULL,
        sk TEXT NOT NULL,
        record TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (key_id, date, sk)
      ) STRICT, WITHOUT ROWID`,
      'CREATE INDEX usage_records_expiry ON usage_records (expires_at)',
    ],
  ],
};

export interface SqliteMeterStoreOptions {
  /** How long a usage record is kept. Default 90 days (as the DynamoDB adapter's TTL). */
  usageDays?: number;
  /** How long a month's counters are kept after the month ends. Default 400 days. */
  counterDays?: number;
}

const DAY_SECONDS = 86_400;
/** How long a counted call's request id is remembered (a retried charge, a refund retried with backoff). */
const CHARGE_SECONDS = DAY_SECONDS;
const PAGE = 500;
/** Expired rows deleted per write, per row written: more than are added, so the expired never pile up. */
const SWEEP_PER_ROW = 2;

const epochSeconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);
/** The instant a minute (`YYYY-MM-DDTHH:MM`) starts, in epoch seconds. */
const minuteSeconds = (minute: string): number => epochSeconds(`${minute}:00Z`);

type ChargeRow = { units: number; month: string; day: string; usage_minute: number; usage_day: number; usage_month: number };

export class SqliteMeterStore implements MeterStore {
  private readonly usageSeconds: number;
  private readonly counterSeconds: number;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteMeterStoreOptions = {},
  ) {
    this.usageSeconds = (options.usageDays ?? 90) * DAY_SECONDS;
    this.counterSeconds = (options.counterDays ?? 400) * DAY_SECONDS;
  }

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    const { keyId, requestId, units, ceilings } = req;
    // Grouped: the charges of one turn of the event loop commit together, each in its own savepoint (database.ts).
    return this.db.writeGrouped((): ChargeResult => {
      const earlier = this.db
        .prepare('SELECT units, month, day, usage_minute, usage_day, usage_month FROM meter_charges WHERE key_id = ? AND request_id = ?')
        .get(keyId, requestId) as ChargeRow | undefined;
      // A call counted before answers as it did then, and counts nothing more.
      if (earlier) return { admitted: true, usage: { minute: earlier.usage_minute, day: earlier.usage_day, month: earlier.usage_month } };

      // A call behind the key's latest minute (another process's clock ran ahead) counts in that minute.
      const last = this.db
        .prepare('SELECT minute FROM meter_months WHERE key_id = ? AND month = ?')
        .pluck()
        .get(keyId, req.windows.month) as string | undefined;
      const minute = last !== undefined && last > req.windows.minute ? last : req.windows.minute;
      const usage = this.readUsage(keyId, { ...req.windows, minute });
      // No state can admit a call larger than a whole ceiling: say which, whatever the minute holds.
      if (units > ceilings.daily) return { admitted: false, exceeded: 'day', usage };
      if (units > ceilings.monthly) return { admitted: false, exceeded: 'month', usage };
      if (usage.minute >= ceilings.perMinute) return { admitted: false, exceeded: 'minute', usage };
      if (usage.day + units > ceilings.daily) return { admitted: false, exceeded: 'day', usage };
      if (usage.month + units > ceilings.monthly) return { admitted: false, exceeded: 'month', usage };

      const counted = this.count(req, minute);
      const now = minuteSeconds(minute);
      this.db
        .prepare(
          `INSERT INTO meter_charges (key_id, request_id, month, day, units, usage_minute, usage_day, usage_month, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(keyId, requestId, req.windows.month, req.windows.day, units, counted.minute, counted.day, counted.month, now + CHARGE_SECONDS);
      this.sweep(now, SWEEP_PER_ROW);
      return { admitted: true, usage: counted };
    });
  }

  /** Counts the call in its three windows, by statements that cannot go over a ceiling. */
  private count(req: ChargeRequest, minute: string): MeterUsage {
    const { keyId, units, ceilings, windows } = req;
    // Right-hand sides read the row before the update: a later minute starts at one request.
    const month = this.db
      .prepare(
        `INSERT INTO meter_months (key_id, month, units, minute, requests, expires_at)
           SELECT :key, :month, :units, :minute, 1, :expires WHERE :units <= :monthCap AND :minuteCap > 0
         ON CONFLICT (key_id, month) DO UPDATE SET
           units = units + :units,
           requests = CASE WHEN minute = :minute THEN requests + 1 ELSE 1 END,
           minute = :minute,
           expires_at = :expires
         WHERE units + :units <= :monthCap AND (minute < :minute OR requests < :minuteCap)
         RETURNING units, requests`,
      )
      .get({
        key: keyId,
        month: windows.month,
        units,
        minute,
        expires: this.counterExpiry(windows.month),
        monthCap: ceilings.monthly,
        minuteCap: ceilings.perMinute,
      }) as { units: number; requests: number } | undefined;
    const day = this.db
      .prepare(
        `INSERT INTO meter_days (key_id, month, day, units) SELECT :key, :month, :day, :units WHERE :units <= :cap
         ON CONFLICT (key_id, month, day) DO UPDATE SET units = units + :units WHERE units + :units <= :cap
         RETURNING units`,
      )
      .pluck()
      .get({ key: keyId, month: windows.month, day: windows.day, units, cap: ceilings.daily }) as number | undefined;
    // The checks made under this transaction's lock left room: a statement that found none means a broken invariant,
    // and throwing rolls the whole charge back.
    if (month === undefined || day === undefined) throw new Error(`metering ${keyId}: a counter had no room the checks had found`);
    return { minute: month.requests, day, month: month.units };
  }

  async refund(req: RefundRequest): Promise<boolean> {
    return this.db.write(() => {
      // The units go back where they were counted; the call stays a request of its minute.
      const charged = this.db
        .prepare('UPDATE meter_charges SET refunded = 1 WHERE key_id = ? AND request_id = ? AND refunded = 0 RETURNING units, month, day')
        .get(req.keyId, req.requestId) as { units: number; month: string; day: string } | undefined;
      if (!charged) return false;
      this.db
        .prepare('UPDATE meter_months SET units = units - ? WHERE key_id = ? AND month = ?')
        .run(charged.units, req.keyId, charged.month);
      this.db
        .prepare('UPDATE meter_days SET units = units - ? WHERE key_id = ? AND month = ? AND day = ?')
        .run(charged.units, req.keyId, charged.month, charged.day);
      return true;
    });
  }

  async usage(keyId: string, windows: MeterWindows): Promise<MeterUsage> {
    return this.db.read(() => this.readUsage(keyId, windows));
  }

  private readUsage(keyId: string, windows: MeterWindows): MeterUsage {
    const row = this.db
      .prepare(
        `SELECT
           (SELECT requests FROM meter_months WHERE key_id = :key AND month = :month AND minute = :minute) AS minute,
           (SELECT units FROM meter_days WHERE key_id = :key AND month = :month AND day = :day) AS day,
           (SELECT units FROM meter_months WHERE key_id = :key AND month = :month) AS month`,
      )
      .get({ key: keyId, minute: windows.minute, month: windows.month, day: windows.day }) as {
      minute: number | null;
      day: number | null;
      month: number | null;
    };
    return { minute: row.minute ?? 0, day: row.day ?? 0, month: row.month ?? 0 };
  }

  async month(keyId: string, month: string): Promise<{ units: number; days: Record<string, number> }> {
    return this.db.read(() => {
      const units = this.db.prepare('SELECT units FROM meter_months WHERE key_id = ? AND month = ?').pluck().get(keyId, month) as
        | number
        | undefined;
      const days: Record<string, number> = {};
      const rows = this.db
        .prepare('SELECT day, units FROM meter_days WHERE key_id = ? AND month = ? AND units > 0 ORDER BY day LIMIT 31')
        .all(keyId, month) as Array<{ day: string; units: number }>;
      for (const r of rows) days[r.day] = r.units;
      return { units: units ?? 0, days };
    });
  }

  async record(records: readonly UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    this.db.write(() => {
      const put = this.db.prepare(
        `INSERT INTO usage_records (key_id, date, sk, record, expires_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (key_id, date, sk) DO UPDATE SET record = excluded.record, expires_at = excluded.expires_at`,
      );
      let latest = Number.NEGATIVE_INFINITY;
      for (const r of records) {
        const at = epochSeconds(r.at);
        latest = Math.max(latest, at);
        put.run(r.keyId, r.at.slice(0, 10), `${r.at}#${r.requestId}`, JSON.stringify(r), at + this.usageSeconds);
      }
      if (Number.isFinite(latest)) this.sweepUsage(latest, SWEEP_PER_ROW * records.length);
    });
  }

  async records(keyId: string, date: string): Promise<UsageRecord[]> {
    const out: UsageRecord[] = [];
    let after = '';
    for (;;) {
      const from = after;
      const rows = this.db.read(() =>
        this.db
          .prepare(`SELECT sk, record FROM usage_records WHERE key_id = ? AND date = ? AND sk > ? ORDER BY sk LIMIT ${PAGE}`)
          .all(keyId, date, from),
      ) as Array<{ sk: string; record: string }>;
      for (const r of rows) out.push(JSON.parse(r.record) as UsageRecord);
      if (rows.length < PAGE) return out;
      after = rows[rows.length - 1]!.sk;
    }
  }

  async ping(): Promise<void> {
    this.db.ping();
  }

  /** Counters are kept `counterDays` past the end of their month. */
  private counterExpiry(month: string): number {
    const [y, m] = month.split('-').map(Number) as [number, number];
    return Date.UTC(y, m, 1) / 1000 + this.counterSeconds;
  }

  /** Deletes up to `n` remembered calls and `n` months (with their days) expired at `now` (epoch seconds). */
  private sweep(now: number, n: number): void {
    this.db
      .prepare(
        `DELETE FROM meter_charges WHERE (key_id, request_id) IN
           (SELECT key_id, request_id FROM meter_charges WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`,
      )
      .run(now, n);
    this.db
      .prepare(
        `DELETE FROM meter_months WHERE (key_id, month) IN
           (SELECT key_id, month FROM meter_months WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`,
      )
      .run(now, n);
  }

  private sweepUsage(now: number, n: number): void {
    this.db
      .prepare(
        `DELETE FROM usage_records WHERE (key_id, date, sk) IN
           (SELECT key_id, date, sk FROM usage_records WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`,
      )
      .run(now, n);
  }
}

/**
 * The upgrade of an old data dir: takes the counter items (pk `meter#${keyId}`, sk `YYYY-MM`: the month's units, each
 * day's `dDD`, the minute and its requests) and the usage items (pk `usage#…`) of a page of the DynamoDB meters
 * table. The request ids a counter item remembers for its last two minutes are not taken (an upgrade runs with the
 * server stopped, long past them). What is already here stays as it is: importing twice changes nothing.
 */
export function importDynamoItems(
  db: SqliteDatabase,
  table: 'versions' | 'accounts' | 'meters' | 'ops',
  items: readonly Record<string, unknown>[],
): number {
  if (table !== 'meters') return 0;
  return db.write(() => {
    let taken = 0;
    const month = db.prepare(
      'INSERT INTO meter_months (key_id, month, units, minute, requests, expires_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    const day = db.prepare('INSERT INTO meter_days (key_id, month, day, units) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    const usage = db.prepare(
      'INSERT INTO usage_records (key_id, date, sk, record, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    for (const item of items) {
      const { pk, sk } = item;
      if (typeof pk !== 'string' || typeof sk !== 'string') continue;
      if (pk.startsWith('meter#') && /^\d{4}-\d\d$/.test(sk)) {
        const keyId = pk.slice('meter#'.length);
        const expiresAt = typeof item.expiresAt === 'number' ? item.expiresAt : counterExpiryOf(sk, 400 * DAY_SECONDS);
        const minute = typeof item.minute === 'string' ? item.minute : '';
        const inserted = month.run(keyId, sk, numberOr0(item.units), minute, numberOr0(item.requests), expiresAt).changes === 1;
        // Days only with a month taken now: a month already here keeps its own days.
        if (inserted) {
          for (const [name, value] of Object.entries(item)) {
            if (/^d\d\d$/.test(name) && typeof value === 'number') day.run(keyId, sk, name.slice(1), value);
          }
        }
        taken++;
      } else if (pk.startsWith('usage#')) {
        const { pk: _pk, sk: _sk, expiresAt, ...fields } = item;
        const record = fields as unknown as UsageRecord;
        const keeps = typeof expiresAt === 'number' ? expiresAt : epochSeconds(record.at) + 90 * DAY_SECONDS;
        usage.run(record.keyId, record.at.slice(0, 10), sk, JSON.stringify(record), keeps);
        taken++;
      }
    }
    return taken;
  });
}

const numberOr0 = (value: unknown): number => (typeof value === 'number' ? value : 0);

function counterExpiryOf(month: string, keepSeconds: number): number {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return Date.UTC(y, m, 1) / 1000 + keepSeconds;
}
