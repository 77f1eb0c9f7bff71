import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AuditRun, CoverageCache, HealthVerdict, LeaseRecord, OpsStore, StoredAuditRun } from '#ops/ports.ts';
import { findingOf } from '#ops/stored-finding.ts';
import { assertItemFits, DynamoTable, isConditionFailure } from './client.ts';

/*
 * Items of the ops table:
 *   coverage   pk 'coverage'               sk 'current'   the CoverageCache's fields (only the ingest marks before any numbers)
 *   health     pk 'health'                 sk 'current'   the HealthVerdict's fields
 *   audit run  pk `audit#${jurisdiction}`  sk ranAt as a UTC instant (sorts by time)   { run, findings }
 *   lease      pk 'lease'                  sk name        { owner, until, untilMs }
 *   marker     pk 'marker'                 sk name        { value }
 * `expiresAt` (epoch seconds) lets DynamoDB drop old audit runs and long-dead leases; nothing depends on it.
 */
type Item = Record<string, unknown>;
type PutCondition = Pick<PutCommandInput, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;

const COVERAGE = { pk: 'coverage', sk: 'current' };
const HEALTH = { pk: 'health', sk: 'current' };
const auditPk = (jurisdiction: string): string => `audit#${jurisdiction}`;
const leaseKey = (name: string) => ({ pk: 'lease', sk: name });
const markerKey = (name: string) => ({ pk: 'marker', sk: name });
const quotaKey = (name: string) => ({ pk: 'quota', sk: name });
const QUOTA_ATTEMPTS = 8;
/** Quota items expire a week after they are last written (DynamoDB TTL; a day's budget is not needed after it). */
const QUOTA_TTL_SECONDS = 7 * 86_400;

const AUDIT_RETENTION_DAYS = 400;
const LEASE_RETENTION_DAYS = 1;

function instantOf(iso: string, what: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`${what} '${iso}' is not an ISO 8601 timestamp`);
  return ms;
}

const epochSeconds = (ms: number): number => Math.floor(ms / 1000);
const DAY_MS = 86_400_000;

function leaseItem(name: string, owner: string, until: string): Item {
  const untilMs = instantOf(until, 'lease until');
  return { ...leaseKey(name), owner, until, untilMs, expiresAt: epochSeconds(untilMs + LEASE_RETENTION_DAYS * DAY_MS) };
}

function fieldsOf<T>(item: Item): T {
  const { pk: _pk, sk: _sk, expiresAt: _expiresAt, ...rest } = item;
  return rest as T;
}

export class DynamoOpsStore implements OpsStore {
  private readonly table: DynamoTable;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new DynamoTable(doc, tableName, 'ops');
  }

  private async get(key: { pk: string; sk: string }): Promise<Item | null> {
    const out = await this.table.send(new GetCommand({ TableName: this.table.name, Key: key, ConsistentRead: true }));
    return out.Item ?? null;
  }

  private async put(item: Item): Promise<void> {
    await this.table.send(new PutCommand({ TableName: this.table.name, Item: item }));
  }

  async getCoverage(): Promise<CoverageCache | null> {
    const item = await this.get(COVERAGE);
    // An ingest may have marked the item before any numbers were computed: no cache yet.
    return item?.records ? fieldsOf<CoverageCache>(item) : null;
  }

  /**
   * One update of the coverage item (`#d` is dirtySince, `#i` ingestingSince, `#fN` the fields named in `fields`),
   * SETting each of `fields` besides `expression`; returns the item as updated, or null when `condition` fails.
   */
  private async updateCoverage(fields: Item, more: { expression?: string; condition?: string; values?: Item } = {}): Promise<Item | null> {
    const names: Record<string, string> = {};
    const values: Item = { ...more.values };
    const sets = Object.entries(fields).map(([name, value], n) => {
      names[`#f${n}`] = name;
      values[`:f${n}`] = value;
      return `#f${n} = :f${n}`;
    });
    const expression = [sets.length ? `SET ${sets.join(', ')}` : '', more.expression ?? ''].join(' ').trim();
    const used = `${expression} ${more.condition ?? ''}`;
    if (/#d\b/.test(used)) names['#d'] = 'dirtySince';
    if (/#i\b/.test(used)) names['#i'] = 'ingestingSince';
    try {
      const out = await this.table.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: COVERAGE,
          UpdateExpression: expression,
          ...(more.condition && { ConditionExpression: more.condition }),
          ExpressionAttributeNames: names,
          ...(Object.keys(values).length && { ExpressionAttributeValues: values }),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ?? null;
    } catch (err) {
      if (isConditionFailure(err)) return null;
      throw err;
    }
  }

  async putCoverage(cache: CoverageCache, computeStartedAt?: string): Promise<CoverageCache> {
    // Updates rather than puts: the ingest mark on the item is left as it is.
    const { ingestingSince: _mark, ...fields } = cache;
    assertItemFits({ ...COVERAGE, ...fields }, 'the coverage cache');
    const stored = (item: Item | null): CoverageCache => fieldsOf<CoverageCache>(item!);
    if (computeStartedAt === undefined) return stored(await this.updateCoverage(fields));
    // Numbers and mark as given, unless an ingest is under way (or died), or dirtied the cache after these numbers
    // started being computed...
    const clean = await this.updateCoverage(fields, {
      condition: 'attribute_not_exists(#i) AND (attribute_not_exists(#d) OR attribute_type(#d, :null) OR #d < :started)',
      values: { ':null': 'NULL', ':started': computeStartedAt },
    });
    if (clean) return stored(clean);
    // ...else the numbers alone, the stored mark kept; and should a concurrent refresh have cleared it in between,
    // dirty from when these numbers started, as they may predate the change it had seen.
    const { dirtySince: _dirty, ...numbers } = fields;
    const kept = await this.updateCoverage(numbers, {
      condition: 'attribute_exists(#d) AND NOT attribute_type(#d, :null)',
      values: { ':null': 'NULL' },
    });
    return stored(kept ?? (await this.updateCoverage({ ...numbers, dirtySince: computeStartedAt })));
  }

  async markIngestStarted(at: string): Promise<void> {
    // The ingest mark and the dirty mark in one write (a refresh never sees one without the other); the earliest
    // ingest and the earliest change count, as an earlier ingest may have died.
    const marked = await this.updateCoverage(
      {},
      {
        expression: 'SET #i = if_not_exists(#i, :at), #d = :at',
        condition: 'attribute_not_exists(#d) OR attribute_type(#d, :null)',
        values: { ':at': at, ':null': 'NULL' },
      },
    );
    if (!marked) await this.updateCoverage({}, { expression: 'SET #i = if_not_exists(#i, :at)', values: { ':at': at } });
  }

  async markIngestCompleted(at: string): Promise<void> {
    await this.updateCoverage({ dirtySince: at }, { expression: 'REMOVE #i', condition: 'attribute_exists(pk)' });
  }

  async putAuditRun(stored: StoredAuditRun): Promise<void> {
    const ranAtMs = instantOf(stored.run.ranAt, 'audit run ranAt');
    const item: Item = {
      pk: auditPk(stored.run.jurisdiction),
      sk: new Date(ranAtMs).toISOString(),
      run: stored.run,
      findings: stored.findings,
      expiresAt: epochSeconds(ranAtMs + AUDIT_RETENTION_DAYS * DAY_MS),
    };
    assertItemFits(item, `audit run ${stored.run.jurisdiction} ${stored.run.ranAt}`);
    await this.put(item);
  }

  async latestAuditRun(jurisdiction: string): Promise<StoredAuditRun | null> {
    const out = await this.table.send(
      new QueryCommand({
        TableName: this.table.name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': auditPk(jurisdiction) },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    return item ? { run: item.run as AuditRun, findings: (item.findings as Item[]).map(findingOf) } : null;
  }

  async auditHistory(jurisdiction: string, limit: number): Promise<AuditRun[]> {
    const runs: AuditRun[] = [];
    if (limit <= 0) return runs;
    // Pages end at 1 MB read (findings included, before projection): keep going until `limit` runs or the end.
    const items = this.table.query(
      {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': auditPk(jurisdiction) },
        ProjectionExpression: '#run',
        ExpressionAttributeNames: { '#run': 'run' },
        ScanIndexForward: false,
        ConsistentRead: true,
      },
      () => limit - runs.length,
    );
    for await (const item of items) {
      runs.push(item.run as AuditRun);
      if (runs.length >= limit) break;
    }
    return runs;
  }

  async getHealthVerdict(): Promise<HealthVerdict | null> {
    const item = await this.get(HEALTH);
    return item ? fieldsOf<HealthVerdict>(item) : null;
  }

  async putHealthVerdict(verdict: HealthVerdict): Promise<void> {
    await this.put({ ...HEALTH, ...verdict });
  }

  /** Writes the lease item on `condition`; false when it fails. */
  private async putLease(name: string, owner: string, until: string, condition: PutCondition): Promise<boolean> {
    try {
      await this.table.send(new PutCommand({ TableName: this.table.name, Item: leaseItem(name, owner, until), ...condition }));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  acquireLease(name: string, owner: string, until: string, now: string): Promise<boolean> {
    return this.putLease(name, owner, until, {
      // Instants compare as numbers: `until` and `now` may be written with different offsets or precision.
      ConditionExpression: 'attribute_not_exists(pk) OR #untilMs < :now OR #owner = :owner',
      ExpressionAttributeNames: { '#untilMs': 'untilMs', '#owner': 'owner' },
      ExpressionAttributeValues: { ':now': instantOf(now, 'lease now'), ':owner': owner },
    });
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    try {
      await this.table.send(
        new DeleteCommand({
          TableName: this.table.name,
          Key: leaseKey(name),
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      );
    } catch (err) {
      // Someone else's lease (ours expired and was taken) or none at all: nothing of ours to release.
      if (!isConditionFailure(err)) throw err;
    }
  }

  async getLease(name: string): Promise<LeaseRecord | null> {
    const item = await this.get(leaseKey(name));
    return item ? { owner: item.owner as string, until: item.until as string } : null;
  }

  takeOverLease(name: string, from: string, owner: string, until: string): Promise<boolean> {
    return this.putLease(name, owner, until, {
      ConditionExpression: '#owner = :from',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':from': from },
    });
  }

  async ping(): Promise<void> {
    await this.table.send(new GetCommand({ TableName: this.table.name, Key: { pk: 'ping', sk: 'ping' }, ProjectionExpression: 'pk' }));
  }

  async quotaUsed(name: string): Promise<number> {
    const item = await this.get(quotaKey(name));
    return typeof item?.used === 'number' ? item.used : 0;
  }

  async takeQuota(name: string, n: number, limit: number): Promise<{ granted: number; used: number }> {
    // Read, then a write conditional on what was read: a concurrent taker makes the condition fail, and we read again.
    for (let attempt = 0; attempt < QUOTA_ATTEMPTS; attempt++) {
      const used = await this.quotaUsed(name);
      const granted = Math.max(0, Math.min(n, limit - used));
      if (granted === 0) return { granted, used };
      try {
        await this.table.send(
          new UpdateCommand({
            TableName: this.table.name,
            Key: quotaKey(name),
            UpdateExpression: 'SET #used = :next, #expiresAt = :expires',
            ConditionExpression: used === 0 ? 'attribute_not_exists(#used) OR #used = :zero' : '#used = :used',
            ExpressionAttributeNames: { '#used': 'used', '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: {
              ':next': used + granted,
              ':expires': Math.floor(Date.now() / 1000) + QUOTA_TTL_SECONDS,
              ...(used === 0 ? { ':zero': 0 } : { ':used': used }),
            },
          }),
        );
        return { granted, used: used + granted };
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
    throw new Error(`quota ${name}: the counter kept changing under ${QUOTA_ATTEMPTS} attempts`);
  }

  async getMarker(name: string): Promise<string | null> {
    const item = await this.get(markerKey(name));
    return typeof item?.value === 'string' ? item.value : null;
  }

  async putMarker(name: string, value: string): Promise<void> {
    await this.put({ ...markerKey(name), value });
  }
}
