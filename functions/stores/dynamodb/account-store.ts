import { BatchGetCommand, DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountStore, ApiKeyRecord } from '#accounts/ports.ts';
import { ConcurrentUpdateError } from '#shared/errors.ts';
import { chunk, DynamoTable, isConditionFailure, untilProcessed } from './client.ts';

/*
 * Two items per key:
 *   key item  pk `key#${hash}`  sk 'key'   the whole ApiKeyRecord: authentication is one GetItem
 *   id item   pk 'keyid'        sk id      { hash }: reserves the id, finds the key by id, and lists keys
 * DynamoDB cannot make an index attribute unique, and dynalite has no transactions, so the id item is written first,
 * conditionally, and the key item second. A key therefore only authenticates once its id is reserved: a process
 * that dies between the two writes leaves an id item without a key item, which every read treats as absent (ids are
 * random, so it is never wanted again). The other order could leave a live key that no id can find or revoke.
 * An id item is never re-pointed, so a key item's id always leads back to it.
 * (All id items share one partition: keys are few and listed only by operators.)
 */
type IdItem = { pk: string; sk: string; hash: string };

const keyItemKey = (hash: string) => ({ pk: `key#${hash}`, sk: 'key' });
export const idItemKey = (id: string) => ({ pk: 'keyid', sk: id });

function recordOf(item: Record<string, unknown>): ApiKeyRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record as unknown as ApiKeyRecord;
}

const byCreation = (a: ApiKeyRecord, b: ApiKeyRecord): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

export class DynamoAccountStore implements AccountStore {
  private readonly table: DynamoTable;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new DynamoTable(doc, tableName, 'accounts');
  }

  /** Writes `item` unless an item with its key exists; false when one does. */
  private async putNew(item: Record<string, unknown>): Promise<boolean> {
    try {
      await this.table.send(new PutCommand({ TableName: this.table.name, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async createKey(record: ApiKeyRecord): Promise<void> {
    const idItem: IdItem = { ...idItemKey(record.id), hash: record.hash };
    if (!(await this.putNew(idItem))) throw new ConcurrentUpdateError(`a key with id ${record.id} already exists`);
    if (!(await this.putNew({ ...keyItemKey(record.hash), ...record }))) {
      await this.unreserveId(record.id, record.hash);
      throw new ConcurrentUpdateError(`a key with this hash already exists (id ${record.id} not created)`);
    }
  }

  private async unreserveId(id: string, hash: string): Promise<void> {
    try {
      await this.table.send(
        new DeleteCommand({
          TableName: this.table.name,
          Key: idItemKey(id),
          ConditionExpression: '#hash = :hash',
          ExpressionAttributeNames: { '#hash': 'hash' },
          ExpressionAttributeValues: { ':hash': hash },
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }

  private async idItem(id: string): Promise<IdItem | null> {
    const out = await this.table.send(new GetCommand({ TableName: this.table.name, Key: idItemKey(id), ConsistentRead: true }));
    return (out.Item as IdItem | undefined) ?? null;
  }

  private async keyItem(hash: string): Promise<ApiKeyRecord | null> {
    const out = await this.table.send(new GetCommand({ TableName: this.table.name, Key: keyItemKey(hash), ConsistentRead: true }));
    return out.Item ? recordOf(out.Item) : null;
  }

  findByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.keyItem(hash);
  }

  async getById(id: string): Promise<ApiKeyRecord | null> {
    const pointer = await this.idItem(id);
    if (!pointer) return null;
    const record = await this.keyItem(pointer.hash);
    return record?.id === id ? record : null;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const pointers: IdItem[] = [];
    const items = this.table.query({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': idItemKey('').pk },
      ConsistentRead: true,
    });
    for await (const item of items) pointers.push(item as IdItem);

    const records: ApiKeyRecord[] = [];
    for (const part of chunk(pointers, 100)) {
      await untilProcessed(
        'listKeys',
        part.map((p) => keyItemKey(p.hash)),
        async (pending) => {
          const out = await this.table.send(
            new BatchGetCommand({ RequestItems: { [this.table.name]: { Keys: pending, ConsistentRead: true } } }),
          );
          records.push(...(out.Responses?.[this.table.name] ?? []).map(recordOf));
          return (out.UnprocessedKeys?.[this.table.name]?.Keys ?? []) as Array<ReturnType<typeof keyItemKey>>;
        },
      );
    }
    const ids = new Set(pointers.map((p) => p.sk));
    return records.filter((r) => ids.has(r.id)).sort(byCreation);
  }

  async revoke(id: string, at: string): Promise<ApiKeyRecord | null> {
    const pointer = await this.idItem(id);
    if (!pointer) return null;
    try {
      const out = await this.table.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: keyItemKey(pointer.hash),
          UpdateExpression: 'SET #revokedAt = :at',
          // Only the first revocation counts: a repeated call changes nothing and returns the record as it is.
          ConditionExpression:
            'attribute_exists(pk) AND #id = :id AND (attribute_not_exists(#revokedAt) OR attribute_type(#revokedAt, :null))',
          ExpressionAttributeNames: { '#id': 'id', '#revokedAt': 'revokedAt' },
          ExpressionAttributeValues: { ':at': at, ':id': id, ':null': 'NULL' },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? recordOf(out.Attributes) : null;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const record = await this.keyItem(pointer.hash);
      return record?.id === id ? record : null;
    }
  }

  async ping(): Promise<void> {
    await this.table.send(new GetCommand({ TableName: this.table.name, Key: { pk: 'ping', sk: 'ping' }, ProjectionExpression: 'pk' }));
  }
}
