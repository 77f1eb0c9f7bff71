import { createHash } from 'node:crypto';
import { BatchWriteCommand, type DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ChargeRequest, ChargeResult, MeterStore, MeterUsage, RefundRequest, UsageRecord } from '#accounts/ports.ts';
import type { MeterWindows } from '#accounts/windows.ts';
import { chunk, DynamoTable, isConditionFailure, untilProcessed } from './client.ts';

/*
 * Two kinds of item in the meters table:
 *   counters  pk `meter#${keyId}`              sk `YYYY-MM`            one per key and UTC month
 *   usage     pk `usage#${keyId}#${YYYY-MM-DD}` sk `${at}#${requestId}` one per call, expiring after 90 days
 *
 * The counter item holds every window a call is counted in: `units` (the month), `dDD` (each day of the month),
 * `minute` with its `requests`, and the request ids of the current minute (`ids`) and of the one before (`prevIds`).
 * So one conditional UpdateItem checks all three ceilings and counts the call in all three windows at once: no
 * transaction is needed (dynalite has none), N concurrent calls against a budget of L admit exactly min(N, L), a
 * refused call writes nothing, and a call counted once is never counted again under the same request id.
 *
 * The ids are kept as 16-character digests. A minute holds at most the key's per-minute ceiling of them (120 at
 * most, the edge limit), the minute before as many again: some 4 KB, whatever the key's traffic.
 */
type CounterItem = {
  units?: number;
  minute?: string;
  requests?: number;
  ids?: Set<string>;
  prevIds?: Set<string>;
  [day: `d${string}`]: number | undefined;
};

const counterKey = (keyId: string, month: string) => ({ pk: `meter#${keyId}`, sk: month });
const usagePk = (keyId: string, date: string) => `usage#${keyId}#${date}`;
const dayName = (day: string) => `d${day}`;
/** A set cannot be empty: the member a fresh `prevIds` holds when there was no earlier minute. */
const NO_IDS = '-';
const MAX_ATTEMPTS = 6;
const ATTRIBUTES = {
  '#units': 'units',
  '#minute': 'minute',
  '#requests': 'requests',
  '#ids': 'ids',
  '#prevIds': 'prevIds',
  '#expiresAt': 'expiresAt',
};
const DAY_SECONDS = 86_400;
const MINUTE_HINTS = 50_000;

export interface DynamoMeterStoreOptions {
  /** How long a usage record is kept (DynamoDB TTL). Default 90 days. */
  usageDays?: number;
  /** How long a month's counters are kept after the month ends. Default 400 days. */
  counterDays?: number;
}

function usageOf(item: CounterItem | undefined, windows: MeterWindows): MeterUsage {
  return {
    minute: item?.minute === windows.minute ? (item.requests ?? 0) : 0,
    day: item?.[dayName(windows.day) as `d${string}`] ?? 0,
    month: item?.units ?? 0,
  };
}

/** The form a request id is kept in: 96 bits of its SHA-256, so that a minute's ids stay small whatever their source. */
const tagOf = (requestId: string): string => createHash('sha256').update(requestId).digest('base64url').slice(0, 16);

const holds = (item: CounterItem | undefined, requestId: string): boolean => {
  const tag = tagOf(requestId);
  return !!(item?.ids?.has(tag) || item?.prevIds?.has(tag));
};

export class DynamoMeterStore implements MeterStore {
  private readonly usageSeconds: number;
  private readonly counterSeconds: number;

  private readonly table: DynamoTable;

  constructor(doc: DynamoDBDocumentClient, tableName: string, options: DynamoMeterStoreOptions = {}) {
    this.table = new DynamoTable(doc, tableName, 'accounts');
    this.usageSeconds = (options.usageDays ?? 90) * DAY_SECONDS;
    this.counterSeconds = (options.counterDays ?? 400) * DAY_SECONDS;
  }

  /** The minute each key was last counted in by this process (a hint, bounded). */
  private readonly minuteSeen = new Map<string, string>();

  private remember(keyId: string, minute: string | undefined): void {
    if (minute === undefined) return;
    if (this.minuteSeen.size >= MINUTE_HINTS) this.minuteSeen.clear();
    this.minuteSeen.set(keyId, minute);
  }

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    const { ceilings, units } = req;
    let minute = req.windows.minute;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const windows = { ...req.windows, minute };
      if (units > ceilings.daily || units > ceilings.monthly) {
        // No state can admit it; say which ceiling, and count nothing.
        const usage = await this.usage(req.keyId, windows);
        return { admitted: false, exceeded: units > ceilings.daily ? 'day' : 'month', usage };
      }
      // Try first the form the item most likely needs: a key this process last counted in this minute is still in
      // it; any other call most likely opens a new minute. Either way both are tried, so the hint only saves a write.
      const first = this.minuteSeen.get(req.keyId) === minute ? 'same-minute' : 'new-minute';
      const counted =
        (await this.tryCharge(req, windows, first)) ??
        (await this.tryCharge(req, windows, first === 'same-minute' ? 'new-minute' : 'same-minute'));
      if (counted) {
        this.remember(req.keyId, counted.minute);
        return { admitted: true, usage: usageOf(counted, windows) };
      }

      // Both conditions failed: find out why, from the item as it is now.
      const item = await this.read(req.keyId, req.windows.month);
      const usage = usageOf(item, windows);
      if (holds(item, req.requestId)) return { admitted: true, usage }; // an earlier attempt of this very call was counted
      if (item?.minute !== undefined && item.minute > minute) {
        minute = item.minute; // another call already opened a later minute: count this one in it
        continue;
      }
      if (usage.minute >= ceilings.perMinute) return { admitted: false, exceeded: 'minute', usage };
      if (usage.day + units > ceilings.daily) return { admitted: false, exceeded: 'day', usage };
      if (usage.month + units > ceilings.monthly) return { admitted: false, exceeded: 'month', usage };
      // The item changed between the attempts and the read (other calls came and went): try again.
    }
    throw new Error(`metering ${req.keyId}: the counters kept changing under ${MAX_ATTEMPTS} attempts`);
  }

  /** One conditional UpdateItem: the counted item, or undefined when its condition failed. */
  private async tryCharge(req: ChargeRequest, windows: MeterWindows, mode: 'same-minute' | 'new-minute'): Promise<CounterItem | undefined> {
    const { ceilings, units } = req;
    const budget =
      '(attribute_not_exists(#day) OR #day <= :dayMax) AND (attribute_not_exists(#units) OR #units <= :monthMax) ' +
      'AND NOT contains(#ids, :rid) AND NOT contains(#prevIds, :rid)';
    // Every name through a placeholder: MINUTE (and others) are reserved words in DynamoDB expressions.
    const names = { ...ATTRIBUTES, '#day': dayName(windows.day) };
    const common: Record<string, unknown> = {
      ':one': 1,
      ':u': units,
      ':minute': windows.minute,
      ':dayMax': ceilings.daily - units,
      ':monthMax': ceilings.monthly - units,
      ':rid': tagOf(req.requestId),
      ':rids': new Set([tagOf(req.requestId)]),
      ':expires': this.counterExpiry(req.windows.month),
    };
    const input: UpdateCommandInput =
      mode === 'same-minute'
        ? {
            TableName: this.table.name,
            Key: counterKey(req.keyId, req.windows.month),
            UpdateExpression: 'SET #expiresAt = :expires ADD #requests :one, #units :u, #day :u, #ids :rids',
            ConditionExpression: `#minute = :minute AND #requests < :perMinute AND ${budget}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...common, ':perMinute': ceilings.perMinute },
            ReturnValues: 'ALL_NEW',
          }
        : {
            TableName: this.table.name,
            Key: counterKey(req.keyId, req.windows.month),
            // Right-hand sides read the item before the update: prevIds takes the ids of the minute that ends.
            UpdateExpression:
              'SET #minute = :minute, #requests = :one, #prevIds = if_not_exists(#ids, :none), #ids = :rids, #expiresAt = :expires ADD #units :u, #day :u',
            ConditionExpression: `(attribute_not_exists(#minute) OR #minute < :minute) AND ${budget}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...common, ':none': new Set([NO_IDS]) },
            ReturnValues: 'ALL_NEW',
          };
    try {
      const out = await this.table.send(new UpdateCommand(input));
      return out.Attributes as CounterItem;
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  }

  async refund(req: RefundRequest): Promise<boolean> {
    // The request id leaves the set it is in with the units it was charged: a second refund finds nothing to take.
    for (const set of ['ids', 'prevIds'] as const) {
      try {
        await this.table.send(
          new UpdateCommand({
            TableName: this.table.name,
            Key: counterKey(req.keyId, req.windows.month),
            UpdateExpression: 'ADD #units :back, #day :back DELETE #set :rids',
            ConditionExpression: 'contains(#set, :rid)',
            ExpressionAttributeNames: { '#units': 'units', '#set': set, '#day': dayName(req.windows.day) },
            ExpressionAttributeValues: { ':back': -req.units, ':rid': tagOf(req.requestId), ':rids': new Set([tagOf(req.requestId)]) },
          }),
        );
        return true;
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
    return false;
  }

  async usage(keyId: string, windows: MeterWindows): Promise<MeterUsage> {
    return usageOf(await this.read(keyId, windows.month), windows);
  }

  async month(keyId: string, month: string): Promise<{ units: number; days: Record<string, number> }> {
    const item = await this.read(keyId, month);
    const days: Record<string, number> = {};
    for (const [name, value] of Object.entries(item ?? {}))
      if (/^d\d\d$/.test(name) && typeof value === 'number' && value > 0) days[name.slice(1)] = value;
    return { units: item?.units ?? 0, days };
  }

  private async read(keyId: string, month: string): Promise<CounterItem | undefined> {
    const out = await this.table.send(new GetCommand({ TableName: this.table.name, Key: counterKey(keyId, month), ConsistentRead: true }));
    return out.Item as CounterItem | undefined;
  }

  async record(records: readonly UsageRecord[]): Promise<void> {
    const items = records.map((r) => ({
      PutRequest: {
        Item: {
          pk: usagePk(r.keyId, r.at.slice(0, 10)),
          sk: `${r.at}#${r.requestId}`,
          ...r,
          expiresAt: Math.floor(Date.parse(r.at) / 1000) + this.usageSeconds,
        },
      },
    }));
    for (const part of chunk(items, 25)) {
      await untilProcessed('record usage', part, async (pending) => {
        const out = await this.table.send(new BatchWriteCommand({ RequestItems: { [this.table.name]: pending } }));
        return (out.UnprocessedItems?.[this.table.name] ?? []) as typeof pending;
      });
    }
  }

  async records(keyId: string, date: string): Promise<UsageRecord[]> {
    const out: UsageRecord[] = [];
    const items = this.table.query({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': usagePk(keyId, date) } });
    for await (const { pk: _pk, sk: _sk, expiresAt: _e, ...r } of items) out.push(r as UsageRecord);
    return out;
  }

  async ping(): Promise<void> {
    await this.read('ping', '0000-00');
  }

  /** Counters are kept `counterDays` past the end of their month. */
  private counterExpiry(month: string): number {
    const [y, m] = month.split('-').map(Number) as [number, number];
    return Date.UTC(y, m, 1) / 1000 + this.counterSeconds;
  }
}
