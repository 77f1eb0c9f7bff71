import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { COLLECTIONS } from '#law/collections.ts';
import { CORPORA, type Corpus, refId, type SectionRef, type SectionVersion, summarize, type VersionSummary } from '#law/model.ts';
import type { EditionRecord, KeyHistory, NearbyKey, StoreWrite, VersionStore } from '#law/ports.ts';
import { forEachBounded } from '#shared/bounded.ts';
import { addDays, localDateOf } from '#shared/dates.ts';
import { ConcurrentUpdateError } from '#shared/errors.ts';
import { assertItemFits, chunk, DynamoTable, isConditionFailure, untilProcessed } from './client.ts';

/*
 * One table, three kinds of item (attribute `itemKind`), each domain object stored whole beside its keys:
 *   version  pk `${jurisdiction}#${corpus}#${key}`   sk validFrom (ISO with offset: sorts by its local date)
 *   history  pk `hist#${jurisdiction}#${corpus}`      sk key
 *   edition  pk `edition#${collection}`               sk `${date}#${id}`
 * Point reads and queries are strongly consistent, so a lookup never sees an ingest's writes out of order; scans
 * (whole-store jobs) are not.
 */
type Item = Record<string, unknown>;
type ItemKind = 'version' | 'history' | 'edition';
type Key = { pk: string; sk: string };

const versionKey = (ref: SectionRef, validFrom: string): Key => ({ pk: refId(ref), sk: validFrom });
const historyPk = (jurisdiction: string, corpus: Corpus): string => `hist#${jurisdiction}#${corpus}`;
const editionPk = (collection: string): string => `edition#${collection}`;
const describeVersion = (ref: SectionRef, validFrom: string): string => `version ${refId(ref)} valid from ${validFrom}`;

function domainOf<T>(item: Item): T {
  const { pk: _pk, sk: _sk, itemKind: _kind, ...rest } = item;
  return rest as T;
}

/** A version's summary fields (never the texts: a key's list stays small however long its sections are). */
const SUMMARY_PROJECTION = {
  ProjectionExpression:
    '#citation, #catchline, #status, #validFrom, #validTo, #temporalBasis, #provenance.#versionLabel, #provenance.#contentHash',
  ExpressionAttributeNames: {
    '#citation': 'citation',
    '#catchline': 'catchline',
    '#status': 'status',
    '#validFrom': 'validFrom',
    '#validTo': 'validTo',
    '#temporalBasis': 'temporalBasis',
    '#provenance': 'provenance',
    '#versionLabel': 'versionLabel',
    '#contentHash': 'contentHash',
  },
};

const BATCH_WRITE_MAX = 25;
const BATCH_GET_MAX = 100;
const WRITE_CONCURRENCY = 16;
const READ_CONCURRENCY = 4;

/** A history's conditional put: its item with rev + 1, written only if the stored rev is still history.rev. */
interface HistoryPut {
  history: KeyHistory;
  what: string;
  input: PutCommandInput;
}

function historyPut(tableName: string, history: KeyHistory): HistoryPut {
  const item: Item = {
    pk: historyPk(history.jurisdiction, history.corpus),
    sk: history.key,
    itemKind: 'history',
    ...history,
    rev: history.rev + 1,
  };
  const what = `key history ${history.jurisdiction}#${history.corpus}#${history.key}`;
  assertItemFits(item, what);
  const condition =
    history.rev === 0
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : {
          ConditionExpression: '#rev = :rev',
          ExpressionAttributeNames: { '#rev': 'rev' },
          ExpressionAttributeValues: { ':rev': history.rev },
        };
  return { history, what, input: { TableName: tableName, Item: item, ...condition } };
}

interface PlannedWrite {
  write: StoreWrite;
  key: Key;
  /** The put's item, built (and size-checked) before anything is written. */
  item?: Item;
}

export class DynamoVersionStore implements VersionStore {
  private readonly table: DynamoTable;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new DynamoTable(doc, tableName, 'versions');
  }

  async findInForce(ref: SectionRef, date: string): Promise<SectionVersion | null> {
    // The latest version starting on or before `date`: sk begins with the local date, so `sk < date+1` selects them.
    const out = await this.table.send(
      new QueryCommand({
        TableName: this.table.name,
        KeyConditionExpression: 'pk = :pk AND sk < :nextDay',
        ExpressionAttributeValues: { ':pk': refId(ref), ':nextDay': addDays(date, 1) },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    if (!item) return null;
    const version = domainOf<SectionVersion>(item);
    return date < localDateOf(version.validTo) ? version : null;
  }

  async listVersions(ref: SectionRef): Promise<VersionSummary[]> {
    const summaries: VersionSummary[] = [];
    const pages = this.query({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': refId(ref) },
      ...SUMMARY_PROJECTION,
    });
    for await (const item of pages) summaries.push(summarize(item as Parameters<typeof summarize>[0]));
    return summaries;
  }

  async getSummaries(wanted: readonly { ref: SectionRef; validFrom: string }[]): Promise<(VersionSummary | null)[]> {
    const found = new Map<string, VersionSummary>();
    const id = (k: Key) => `${k.pk}@${k.sk}`;
    const keys = wanted.map(({ ref, validFrom }) => versionKey(ref, validFrom));
    const unique = [...new Map(keys.map((k) => [id(k), k])).values()]; // BatchGetItem rejects a request that names an item twice
    await forEachBounded(chunk(unique, BATCH_GET_MAX), READ_CONCURRENCY, (part) =>
      untilProcessed<Key>('getSummaries', part, async (pending) => {
        const out = await this.table.send(
          new BatchGetCommand({
            RequestItems: {
              [this.table.name]: {
                Keys: pending,
                ConsistentRead: true,
                ...SUMMARY_PROJECTION,
                ProjectionExpression: `pk, sk, ${SUMMARY_PROJECTION.ProjectionExpression}`,
              },
            },
          }),
        );
        for (const item of out.Responses?.[this.table.name] ?? []) {
          found.set(id(item as Key), summarize(domainOf<Parameters<typeof summarize>[0]>(item)));
        }
        return (out.UnprocessedKeys?.[this.table.name]?.Keys ?? []) as Key[];
      }),
    );
    return keys.map((k) => found.get(id(k)) ?? null);
  }

  async getVersion(ref: SectionRef, validFrom: string): Promise<SectionVersion | null> {
    const out = await this.table.send(
      new GetCommand({ TableName: this.table.name, Key: versionKey(ref, validFrom), ConsistentRead: true }),
    );
    return out.Item ? domainOf<SectionVersion>(out.Item) : null;
  }

  async nearbyKeys(jurisdiction: string, corpus: Corpus, key: string, limit: number): Promise<string[]> {
    return (await this.nearbyKeySummaries(jurisdiction, corpus, key, limit)).map((near) => near.key);
  }

  async nearbyKeySummaries(jurisdiction: string, corpus: Corpus, key: string, limit: number): Promise<NearbyKey[]> {
    if (limit <= 0) return [];
    const pk = historyPk(jurisdiction, corpus);
    const [before, after] = await Promise.all([this.keysBeside(pk, key, 'before', limit), this.keysBeside(pk, key, 'after', limit)]);
    // Alternate sides, nearest first; a side that runs out leaves its share to the other.
    let fromBefore = 0;
    let fromAfter = 0;
    while (fromBefore + fromAfter < limit && (fromBefore < before.length || fromAfter < after.length)) {
      if (fromBefore < before.length && (fromBefore <= fromAfter || fromAfter >= after.length)) fromBefore++;
      else fromAfter++;
    }
    return [...before.slice(0, fromBefore).reverse(), ...after.slice(0, fromAfter)];
  }

  /** Up to `limit` keys nearest `key` on one side, nearest first, each with its history's summary. */
  private async keysBeside(pk: string, key: string, side: 'before' | 'after', limit: number): Promise<NearbyKey[]> {
    const keys: NearbyKey[] = [];
    const pages = this.query(
      {
        KeyConditionExpression: side === 'before' ? 'pk = :pk AND sk < :key' : 'pk = :pk AND sk > :key',
        ExpressionAttributeValues: { ':pk': pk, ':key': key },
        ProjectionExpression: 'sk, #summary',
        ExpressionAttributeNames: { '#summary': 'summary' },
        ScanIndexForward: side === 'after',
      },
      () => limit - keys.length,
    );
    for await (const item of pages) {
      keys.push({ key: item.sk as string, summary: item.summary as KeyHistory['summary'] });
      if (keys.length >= limit) break;
    }
    return keys;
  }

  /**
   * One corpus after another, most carried first, until one holds a key: a search of a jurisdiction (which asks this
   * first) reads one item, not one per corpus; only a jurisdiction carried nowhere costs a query per corpus.
   */
  async carries(jurisdiction: string, corpus?: Corpus): Promise<boolean> {
    for (const c of corpus ? [corpus] : CORPORA) {
      const out = await this.table.send(
        new QueryCommand({
          TableName: this.table.name,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': historyPk(jurisdiction, c) },
          ProjectionExpression: 'sk',
          Limit: 1,
          ConsistentRead: true,
        }),
      );
      if ((out.Items?.length ?? 0) > 0) return true;
    }
    return false;
  }

  async getHistories(jurisdiction: string, corpus: Corpus, keys: readonly string[]): Promise<Map<string, KeyHistory>> {
    const found = new Map<string, KeyHistory>();
    const pk = historyPk(jurisdiction, corpus);
    const unique = [...new Set(keys)]; // BatchGetItem rejects a request that names an item twice
    await forEachBounded(chunk(unique, BATCH_GET_MAX), READ_CONCURRENCY, (part) =>
      untilProcessed<Key>(
        'getHistories',
        part.map((sk) => ({ pk, sk })),
        async (pending) => {
          const out = await this.table.send(
            new BatchGetCommand({ RequestItems: { [this.table.name]: { Keys: pending, ConsistentRead: true } } }),
          );
          for (const item of out.Responses?.[this.table.name] ?? []) {
            const history = domainOf<KeyHistory>(item);
            found.set(history.key, history);
          }
          return (out.UnprocessedKeys?.[this.table.name]?.Keys ?? []) as Key[];
        },
      ),
    );
    return found;
  }

  async *historiesWithPrefix(jurisdiction: string, corpus: Corpus, prefix: string): AsyncIterable<KeyHistory> {
    // DynamoDB refuses an empty string in a key condition: the empty prefix is the whole partition.
    const pages = this.query({
      KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': historyPk(jurisdiction, corpus), ...(prefix && { ':prefix': prefix }) },
    });
    for await (const item of pages) yield domainOf<KeyHistory>(item);
  }

  async putHistory(history: KeyHistory): Promise<void> {
    await this.sendHistoryPut(historyPut(this.table.name, history));
  }

  /** Each history its own conditional put (dynalite has no transactions: DESIGN.md), several in flight at once. */
  async putHistories(histories: readonly KeyHistory[]): Promise<string[]> {
    const puts = histories.map((h) => historyPut(this.table.name, h)); // every item's size checked before any write
    const lost: string[] = [];
    await forEachBounded(puts, WRITE_CONCURRENCY, async (put) => {
      try {
        await this.sendHistoryPut(put);
      } catch (err) {
        if (!(err instanceof ConcurrentUpdateError)) throw err;
        lost.push(put.history.key);
      }
    });
    return lost;
  }

  private async sendHistoryPut({ history, what, input }: HistoryPut): Promise<void> {
    try {
      await this.table.send(new PutCommand(input));
    } catch (err) {
      if (isConditionFailure(err)) throw new ConcurrentUpdateError(`${what} is no longer at revision ${history.rev}`, { cause: err });
      throw err;
    }
  }

  async applyWrites(writes: readonly StoreWrite[]): Promise<void> {
    const planned = writes.map((w) => this.plan(w));
    // The n-th write to one item goes in round n: no batch names an item twice, and one item's writes keep their order.
    const rounds: PlannedWrite[][] = [];
    const seen = new Map<string, number>();
    for (const p of planned) {
      const id = `${p.key.pk}\u0000${p.key.sk}`;
      const n = seen.get(id) ?? 0;
      seen.set(id, n + 1);
      const round = rounds[n];
      if (round) round.push(p);
      else rounds[n] = [p];
    }
    for (const round of rounds) {
      const batched = round.filter((p) => p.write.kind !== 'setValidTo');
      const updates = round.filter((p) => p.write.kind === 'setValidTo');
      const tasks: Array<() => Promise<void>> = [
        ...chunk(batched, BATCH_WRITE_MAX).map((batch) => () => this.batchWrite(batch)),
        ...updates.map((p) => () => this.setValidTo(p)),
      ];
      await forEachBounded(tasks, WRITE_CONCURRENCY, (task) => task());
    }
  }

  private plan(write: StoreWrite): PlannedWrite {
    if (write.kind !== 'put') return { write, key: versionKey(write.ref, write.validFrom) };
    const v = write.version;
    const key = versionKey(v.citation, v.validFrom);
    const item: Item = { ...key, itemKind: 'version', ...v };
    assertItemFits(item, describeVersion(v.citation, v.validFrom));
    return { write, key, item };
  }

  private async batchWrite(batch: PlannedWrite[]): Promise<void> {
    type Request = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Key } };
    const requests: Request[] = batch.map((p) => (p.item ? { PutRequest: { Item: p.item } } : { DeleteRequest: { Key: p.key } }));
    await untilProcessed('applyWrites', requests, async (pending) => {
      const out = await this.table.send(new BatchWriteCommand({ RequestItems: { [this.table.name]: pending } }));
      return (out.UnprocessedItems?.[this.table.name] ?? []) as Request[];
    });
  }

  private async setValidTo(p: PlannedWrite): Promise<void> {
    if (p.write.kind !== 'setValidTo') return;
    const { ref, validFrom, validTo } = p.write;
    try {
      await this.table.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: p.key,
          UpdateExpression: 'SET #validTo = :validTo',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#validTo': 'validTo' },
          ExpressionAttributeValues: { ':validTo': validTo },
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) throw new Error(`setValidTo: no stored ${describeVersion(ref, validFrom)}`, { cause: err });
      throw err;
    }
  }

  async putEdition(edition: EditionRecord): Promise<void> {
    const item: Item = { pk: editionPk(edition.collection), sk: `${edition.date}#${edition.id}`, itemKind: 'edition', ...edition };
    await this.table.send(new PutCommand({ TableName: this.table.name, Item: item }));
  }

  async listEditions(collection: string): Promise<EditionRecord[]> {
    const editions: EditionRecord[] = [];
    const pages = this.query({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': editionPk(collection) } });
    for await (const item of pages) editions.push(domainOf<EditionRecord>(item));
    return editions;
  }

  /** Histories live in one partition per jurisdiction and corpus: query those the catalog names, never scan bodies. */
  async *scanHistories(): AsyncIterable<KeyHistory> {
    const partitions = new Set(COLLECTIONS.map((c) => historyPk(c.jurisdiction, c.corpus)));
    for (const pk of partitions) {
      for await (const item of this.query({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } })) {
        yield domainOf<KeyHistory>(item);
      }
    }
  }

  async *scanVersions(): AsyncIterable<SectionVersion> {
    for await (const item of this.scanKind('version')) yield domainOf<SectionVersion>(item);
  }

  async ping(): Promise<void> {
    await this.table.send(new GetCommand({ TableName: this.table.name, Key: { pk: 'ping', sk: 'ping' }, ProjectionExpression: 'pk' }));
  }

  /** Point reads and queries are strongly consistent (see the table's comment). */
  private query(
    input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>,
    pageLimit?: () => number,
  ): AsyncIterable<Item> {
    return this.table.query({ ...input, ConsistentRead: true }, pageLimit);
  }

  private scanKind(kind: ItemKind): AsyncIterable<Item> {
    return this.table.scan({
      FilterExpression: '#itemKind = :kind',
      ExpressionAttributeNames: { '#itemKind': 'itemKind' },
      ExpressionAttributeValues: { ':kind': kind },
    });
  }
}
