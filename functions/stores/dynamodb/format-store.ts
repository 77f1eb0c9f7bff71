import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredFormatRecord } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import { assertItemFits, guarded } from './client.ts';

/* Items of the ops table: pk 'format', sk the record id, { stored } (the record with its pins and load time). */
const PK = 'format';

export class DynamoFormatStore implements FormatStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listRecords(): Promise<StoredFormatRecord[]> {
    const out: StoredFormatRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await guarded('ops', () =>
        this.doc.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': PK },
            ConsistentRead: true,
            ...(start && { ExclusiveStartKey: start }),
          }),
        ),
      );
      for (const item of page.Items ?? []) out.push(item.stored as StoredFormatRecord);
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }

  async putRecord(stored: StoredFormatRecord): Promise<void> {
    const item = { pk: PK, sk: stored.record.id, stored };
    assertItemFits(item, `format record ${stored.record.id}`);
    await guarded('ops', () => this.doc.send(new PutCommand({ TableName: this.tableName, Item: item })));
  }

  async deleteRecord(id: string): Promise<void> {
    await guarded('ops', () => this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: PK, sk: id } })));
  }
}
