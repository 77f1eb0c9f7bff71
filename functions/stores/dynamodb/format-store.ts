import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { pinnedRowsOf, type StoredFormatRecord } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import { assertItemFits, DynamoTable } from './client.ts';

/*
 * Items of the ops table, two a record, both with the record id as sk: pk 'format-record' { stored } (the record with
 * its pins and load time), and pk 'format-pins' { pins } (pinnedRowsOf the record), which every lookup of a rule reads.
 * The pins have a partition of their own because a query reads whole items whatever it projects: read beside the
 * records (a MB in all), they cost the embedded DynamoDB 25 ms of its thread for every lookup of a rule; alone they are
 * some tens of KB.
 * Records written before in one item a record (pk 'format') are not read: the next load of the records (every start,
 * and the deploy's setup job) finds none and writes them again.
 */
const RECORDS = 'format-record';
const PINS = 'format-pins';

export class DynamoFormatStore implements FormatStore {
  private readonly table: DynamoTable;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new DynamoTable(doc, tableName, 'ops');
  }

  async listRecords(): Promise<StoredFormatRecord[]> {
    const out: StoredFormatRecord[] = [];
    const items = this.table.query({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': RECORDS },
      ConsistentRead: true,
    });
    for await (const item of items) out.push(item.stored as StoredFormatRecord);
    return out;
  }

  async listPinnedRows(): Promise<string[]> {
    const rows: string[] = [];
    const items = this.table.query({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': PINS },
      ConsistentRead: true,
    });
    for await (const item of items) rows.push(...(item.pins as string[]));
    return rows;
  }

  /**
   * The pins first: a put cut off between the two leaves pins without a record, which the next load, not finding the
   * record, puts again (unless the record was dropped from the files meanwhile); the other order would leave a record
   * without its pins, which the next load finds unchanged and leaves so.
   */
  async putRecord(stored: StoredFormatRecord): Promise<void> {
    const id = stored.record.id;
    const item = { pk: RECORDS, sk: id, stored };
    assertItemFits(item, `format record ${id}`);
    await this.table.send(new PutCommand({ TableName: this.table.name, Item: { pk: PINS, sk: id, pins: pinnedRowsOf(stored.record) } }));
    await this.table.send(new PutCommand({ TableName: this.table.name, Item: item }));
  }

  /** The pins first: a delete cut off between the two leaves the record, which the next load deletes again. */
  async deleteRecord(id: string): Promise<void> {
    await this.table.send(new DeleteCommand({ TableName: this.table.name, Key: { pk: PINS, sk: id } }));
    await this.table.send(new DeleteCommand({ TableName: this.table.name, Key: { pk: RECORDS, sk: id } }));
  }
}
