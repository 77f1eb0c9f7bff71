import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { pinnedRowsOf, type StoredFormatRecord } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import { forEachBounded } from '#shared/bounded.ts';
import { assertItemFits, DynamoTable, isConditionFailure } from './client.ts';

/*
 * Items of the ops table, with the record id or a pinned row as sk:
 *   pk 'format-records'  sk id   { stored }: the record with its pins and load time
 *   pk 'format-pins'     sk id   { pins }: pinnedRowsOf the record (what its put or delete must undo)
 *   pk 'format-pinned'   sk row  { records }: the ids of the records read from that rule version (a string set)
 * Every lookup of a rule asks whether its version is pinned: one GetItem of a small item, whatever the records hold
 * (reading every record's pins for it cost several times a statute lookup's work).
 * Records stored in an earlier layout (pk 'format' or 'format-record') are not read: the next load of the records
 * (every start, and the deploy's setup job) finds none and puts them all again, which writes their pinned rows.
 */
const RECORDS = 'format-records';
const PINS = 'format-pins';
const PINNED = 'format-pinned';
const ROW_WRITES_IN_FLIGHT = 8;

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

  async isPinned(row: string): Promise<boolean> {
    const out = await this.table.send(
      new GetCommand({
        TableName: this.table.name,
        Key: { pk: PINNED, sk: row },
        ProjectionExpression: '#records',
        ExpressionAttributeNames: { '#records': 'records' },
        ConsistentRead: true,
      }),
    );
    const records = out.Item?.records as Set<string> | undefined;
    return records !== undefined && records.size > 0;
  }

  /**
   * The rows first, the record last: a put cut off before its end leaves the record as it was (or absent), so the
   * next load puts it again and completes the rows; the rows it no longer pins are cleared before its pins item is
   * replaced, so that a repeat still knows them.
   */
  async putRecord(stored: StoredFormatRecord): Promise<void> {
    const id = stored.record.id;
    const item = { pk: RECORDS, sk: id, stored };
    assertItemFits(item, `format record ${id}`);
    const rows = new Set(pinnedRowsOf(stored.record));
    const before = await this.pinsOf(id);
    await forEachBounded([...rows], ROW_WRITES_IN_FLIGHT, (row) => this.pin(row, id));
    await forEachBounded(
      before.filter((row) => !rows.has(row)),
      ROW_WRITES_IN_FLIGHT,
      (row) => this.unpin(row, id),
    );
    await this.table.send(new PutCommand({ TableName: this.table.name, Item: { pk: PINS, sk: id, pins: [...rows] } }));
    await this.table.send(new PutCommand({ TableName: this.table.name, Item: item }));
  }

  /** The rows first, then the pins, the record last: a delete cut off before its end is done again by the next load. */
  async deleteRecord(id: string): Promise<void> {
    await forEachBounded(await this.pinsOf(id), ROW_WRITES_IN_FLIGHT, (row) => this.unpin(row, id));
    await this.table.send(new DeleteCommand({ TableName: this.table.name, Key: { pk: PINS, sk: id } }));
    await this.table.send(new DeleteCommand({ TableName: this.table.name, Key: { pk: RECORDS, sk: id } }));
  }

  private async pinsOf(id: string): Promise<string[]> {
    const out = await this.table.send(new GetCommand({ TableName: this.table.name, Key: { pk: PINS, sk: id }, ConsistentRead: true }));
    return (out.Item?.pins as string[] | undefined) ?? [];
  }

  private async pin(row: string, id: string): Promise<void> {
    await this.table.send(
      new UpdateCommand({
        TableName: this.table.name,
        Key: { pk: PINNED, sk: row },
        UpdateExpression: 'ADD #records :id',
        ExpressionAttributeNames: { '#records': 'records' },
        ExpressionAttributeValues: { ':id': new Set([id]) },
      }),
    );
  }

  /** Only where the row holds the id (a row never pinned is not written at all). */
  private async unpin(row: string, id: string): Promise<void> {
    try {
      await this.table.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: { pk: PINNED, sk: row },
          UpdateExpression: 'DELETE #records :ids',
          ConditionExpression: 'contains(#records, :id)',
          ExpressionAttributeNames: { '#records': 'records' },
          ExpressionAttributeValues: { ':ids': new Set([id]), ':id': id },
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }
}
