import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { pinnedRowsOf, type StoredFormatRecord } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import { assertItemFits, DynamoTable } from './client.ts';

/*
 * Items of the ops table: pk 'format', sk the record id, { stored } (the record with its pins and load time) and
 * { pins } (pinnedRowsOf the record: read alone, by projection, for every lookup of a rule).
 */
const PK = 'format';

export class DynamoFormatStore implements FormatStore {
  private readonly table: DynamoTable;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new DynamoTable(doc, tableName, 'ops');
  }

  async listRecords(): Promise<StoredFormatRecord[]> {
    const out: StoredFormatRecord[] = [];
    const items = this.table.query({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': PK }, ConsistentRead: true });
    for await (const item of items) out.push(item.stored as StoredFormatRecord);
    return out;
  }

  async listPinnedRows(): Promise<string[]> {
    const rows: string[] = [];
    const items = this.table.query({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': PK },
      ProjectionExpression: '#pins',
      ExpressionAttributeNames: { '#pins': 'pins' },
      ConsistentRead: true,
    });
    let complete = true;
    for await (const item of items) {
      if (Array.isArray(item.pins)) rows.push(...(item.pins as string[]));
      else complete = false;
    }
    // An item written before `pins` existed: read the records themselves.
    return complete ? rows : (await this.listRecords()).flatMap((s) => pinnedRowsOf(s.record));
  }

  async putRecord(stored: StoredFormatRecord): Promise<void> {
    const item = { pk: PK, sk: stored.record.id, stored, pins: pinnedRowsOf(stored.record) };
    assertItemFits(item, `format record ${stored.record.id}`);
    await this.table.send(new PutCommand({ TableName: this.table.name, Item: item }));
  }

  async deleteRecord(id: string): Promise<void> {
    await this.table.send(new DeleteCommand({ TableName: this.table.name, Key: { pk: PK, sk: id } }));
  }
}
