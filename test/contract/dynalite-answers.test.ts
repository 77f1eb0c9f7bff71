/**
 * The embedded DynamoDB reads a table's Query without dynalite's streams (dynalite-query.ts), its items with LevelDB's
 * synchronous get (dynalite-gets.ts), and keeps dynalite's parses of expressions by their values' types
 * (dynalite-expressions.ts): every answer must be the one dynalite itself gives. The same requests go to the embedded
 * DynamoDB on disk and to dynalite as it ships (in a thread of its own, so none of asof's changes reach it), holding
 * the same items: random queries (key conditions of every operator, both directions, limits, filters, projections,
 * COUNT, consumed capacity, pages of 1 MB and the pages after them); GetItem and BatchGetItem with and without
 * projections, present, absent and refused; random sequences of conditional updates, puts, deletes and filters with
 * values of every type, refusals included.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  type AttributeValue,
  BatchGetItemCommand,
  type BatchGetItemCommandInput,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDynalite, startDynalite } from '#stores/dynamodb/dynalite.ts';

const TABLE = 'query-check';
const INDEXED = 'query-check-indexed';
const PARTITIONS = ['a', 'b', 'c'];
/** A partition of 120 items of about 9 KB: its sizes add up past 1 MB in steps small enough to find the page's exact edge. */
const MANY = 'm';

let dir: string;
let ours: RunningDynalite;
let plain: { worker: Worker; port: number };
let clients: { ours: DynamoDBClient; plain: DynamoDBClient };

/** Items of each partition: sort keys 00..29, sizes from a few bytes to 240 KB (so that a page of 1 MB fills). */
function items(): Record<string, AttributeValue>[] {
  const all: Record<string, AttributeValue>[] = [];
  for (const [p, pk] of PARTITIONS.entries())
    for (let i = 0; i < 30; i++) {
      const sk = String(i).padStart(2, '0');
      all.push({
        pk: { S: pk },
        sk: { S: `${sk}#${i % 3 === 0 ? 'x' : 'y'}` },
        n: { N: String((i * 7 + p) % 11) },
        tag: { S: i % 4 === 0 ? 'even' : 'odd' },
        text: { S: 'law '.repeat(i % 5 === 0 ? 60_000 : 10 + i) },
        nested: { M: { depth: { N: String(i) }, label: { S: `n${i}` } } },
        gsi: { S: `g${i % 2}` },
      });
    }
  for (let i = 0; i < 120; i++) all.push({ pk: { S: MANY }, sk: { S: String(i).padStart(3, '0') }, text: { S: 'law '.repeat(2_250) } });
  return all;
}

async function load(client: DynamoDBClient): Promise<void> {
  const key = {
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' as const },
      { AttributeName: 'sk', AttributeType: 'S' as const },
    ],
  };
  const schema = [
    { AttributeName: 'pk', KeyType: 'HASH' as const },
    { AttributeName: 'sk', KeyType: 'RANGE' as const },
  ];
  await client.send(new CreateTableCommand({ TableName: TABLE, ...key, KeySchema: schema, BillingMode: 'PAY_PER_REQUEST' }));
  await client.send(
    new CreateTableCommand({
      TableName: INDEXED,
      AttributeDefinitions: [...key.AttributeDefinitions, { AttributeName: 'gsi', AttributeType: 'S' }],
      KeySchema: schema,
      BillingMode: 'PAY_PER_REQUEST',
      GlobalSecondaryIndexes: [
        {
          IndexName: 'by-gsi',
          KeySchema: [
            { AttributeName: 'gsi', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  // dynalite makes a table ACTIVE after createTableMs; both are started with (next to) none.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const all = items();
  for (const table of [TABLE, INDEXED])
    for (let i = 0; i < all.length; i += 25) {
      const part = all.slice(i, i + 25).filter((it) => table === TABLE || (it.n && Number(it.n.N) % 2 === 0));
      if (part.length)
        await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: part.map((Item) => ({ PutRequest: { Item } })) } }));
    }
}

const client = (endpoint: string, credentials: { accessKeyId: string; secretAccessKey: string }) =>
  new DynamoDBClient({ endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asof-dynalite-query-'));
  ours = await startDynalite({ path: join(dir, 'dynamodb') });
  const worker = new Worker(new URL('../support/plain-dynalite-thread.cjs', import.meta.url));
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
  });
  plain = { worker, port };
  clients = {
    ours: client(ours.access.endpoint, ours.access.credentials),
    plain: client(`http://127.0.0.1:${port}`, { accessKeyId: 'plain', secretAccessKey: 'plain' }),
  };
  await Promise.all([load(clients.ours), load(clients.plain)]);
});

afterAll(async () => {
  clients?.ours.destroy();
  clients?.plain.destroy();
  await ours?.close();
  plain?.worker.postMessage('close');
  await plain?.worker.terminate();
  await rm(dir, { recursive: true, force: true });
});

type Answer = { ok: Omit<QueryCommandOutput, '$metadata'> } | { error: string; message: string };

async function ask(c: DynamoDBClient, input: QueryCommandInput): Promise<Answer> {
  try {
    const { $metadata: _, ...out } = await c.send(new QueryCommand(input));
    return { ok: out };
  } catch (err) {
    const e = err as Error;
    return { error: e.name, message: e.message };
  }
}

/** Both stores' answers to a query and to every page after it (at most 20). */
async function pages(input: QueryCommandInput): Promise<{ ours: Answer[]; plain: Answer[] }> {
  const run = async (c: DynamoDBClient) => {
    const answers: Answer[] = [];
    let next: QueryCommandInput | null = input;
    while (next && answers.length < 20) {
      const answer = await ask(c, next);
      answers.push(answer);
      const after: Record<string, AttributeValue> | undefined = 'ok' in answer ? answer.ok.LastEvaluatedKey : undefined;
      next = after ? { ...input, ExclusiveStartKey: after } : null;
    }
    return answers;
  };
  return { ours: await run(clients.ours), plain: await run(clients.plain) };
}

const sortKey = fc.integer({ min: 0, max: 32 }).map((i) => `${String(i).padStart(2, '0')}${i % 2 ? '#x' : ''}`);
const rangeCondition = fc.oneof(
  fc.constant(null),
  fc.tuple(fc.constantFrom('=', '<', '<=', '>', '>='), sortKey).map(([op, v]) => ({ expr: `sk ${op} :v1`, values: { ':v1': { S: v } } })),
  fc
    .tuple(sortKey, sortKey)
    .map(([a, b]) => ({ expr: 'sk BETWEEN :v1 AND :v2', values: { ':v1': { S: a < b ? a : b }, ':v2': { S: a < b ? b : a } } })),
  fc.constantFrom('0', '1', '2', '1', '9').map((v) => ({ expr: 'begins_with(sk, :v1)', values: { ':v1': { S: v } } })),
);
const queryShape = fc.record({
  pk: fc.constantFrom(...PARTITIONS, MANY, 'none'),
  range: rangeCondition,
  forward: fc.option(fc.boolean(), { nil: undefined }),
  limit: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
  filter: fc.constantFrom(null, 'n > :f', 'tag = :t', 'nested.depth < :f', 'attribute_exists(nope)'),
  projection: fc.constantFrom(null, 'sk, n', 'nested.label, tag', 'pk'),
  select: fc.constantFrom(undefined, 'COUNT' as const),
  capacity: fc.constantFrom(undefined, 'TOTAL' as const, 'INDEXES' as const),
  consistent: fc.option(fc.boolean(), { nil: undefined }),
});

function toInput(q: typeof queryShape extends fc.Arbitrary<infer T> ? T : never, table = TABLE): QueryCommandInput {
  const values: Record<string, AttributeValue> = { ':pk': { S: q.pk }, ...(q.range?.values ?? {}) };
  if (q.filter?.includes(':f')) values[':f'] = { N: '5' };
  if (q.filter?.includes(':t')) values[':t'] = { S: 'even' };
  return {
    TableName: table,
    KeyConditionExpression: q.range ? `pk = :pk AND ${q.range.expr}` : 'pk = :pk',
    ExpressionAttributeValues: values,
    ...(q.forward !== undefined && { ScanIndexForward: q.forward }),
    ...(q.limit !== undefined && { Limit: q.limit }),
    ...(q.filter && { FilterExpression: q.filter }),
    ...(q.projection && q.select !== 'COUNT' && { ProjectionExpression: q.projection }),
    ...(q.select && { Select: q.select }),
    ...(q.capacity && { ReturnConsumedCapacity: q.capacity }),
    ...(q.consistent !== undefined && { ConsistentRead: q.consistent }),
  };
}

describe('a Query of the embedded DynamoDB answers as dynalite does', () => {
  it('for random queries of a table, page after page', async () => {
    await fc.assert(
      fc.asyncProperty(queryShape, async (q) => {
        const { ours: mine, plain: theirs } = await pages(toInput(q));
        expect(mine).toEqual(theirs);
      }),
      { numRuns: 150 },
    );
  });

  it('fills a page of 1 MB and goes on from its last key, as dynalite does', async () => {
    for (const pk of ['a', MANY]) {
      const { ours: mine, plain: theirs } = await pages({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
      });
      expect(mine).toEqual(theirs);
      expect(mine.length).toBeGreaterThan(1); // the partition holds more than a page
      const first = mine[0]!;
      expect('ok' in first && first.ok.LastEvaluatedKey).toBeTruthy();
    }
  });

  it('for a lookup: the latest item before a date, one item', async () => {
    const input: QueryCommandInput = {
      TableName: TABLE,
      KeyConditionExpression: 'pk = :pk AND sk < :next',
      ExpressionAttributeValues: { ':pk': { S: 'b' }, ':next': { S: '17' } },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    };
    const { ours: mine, plain: theirs } = await pages(input);
    expect(mine[0]).toEqual(theirs[0]);
    expect(mine[0]).toMatchObject({ ok: { Count: 1, Items: [{ sk: { S: '16#y' } }] } });
  });

  it('for queries of an index and refusals, which stay dynalite’s own', async () => {
    const asks: QueryCommandInput[] = [
      {
        TableName: INDEXED,
        IndexName: 'by-gsi',
        KeyConditionExpression: 'gsi = :g',
        ExpressionAttributeValues: { ':g': { S: 'g0' } },
        Limit: 3,
      },
      {
        TableName: INDEXED,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'c' } },
        Limit: 4,
        ScanIndexForward: false,
      },
      { TableName: TABLE, KeyConditionExpression: 'sk = :v', ExpressionAttributeValues: { ':v': { S: '01' } } },
      { TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'a' }, ':unused': { S: 'x' } } },
      { TableName: 'no-such-table', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'a' } } },
      {
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'a' } },
        ExclusiveStartKey: { pk: { S: 'b' }, sk: { S: '01#y' } },
      },
    ];
    for (const input of asks) {
      const { ours: mine, plain: theirs } = await pages(input);
      expect(mine).toEqual(theirs);
    }
  });
});

describe('an item read of the embedded DynamoDB answers as dynalite does', () => {
  const keyOf = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
  const present = () => items().map((it) => keyOf(it.pk!.S!, it.sk!.S!));
  const plainAnswer = async <T>(send: (c: DynamoDBClient) => Promise<T>) => {
    const settle = (c: DynamoDBClient) =>
      send(c).then(
        (out) => ({ ok: { ...out, $metadata: undefined } }),
        (err: Error) => ({ error: err.name, message: err.message }),
      );
    return { ours: await settle(clients.ours), plain: await settle(clients.plain) };
  };

  it('GetItem of every item, of absent ones, with and without a projection', async () => {
    const keys = [...present().filter((_, i) => i % 3 === 0), keyOf('a', '99'), keyOf('none', '00#x')];
    for (const Key of keys)
      for (const projection of [undefined, 'sk, n', 'nested.label, tag']) {
        const { ours: mine, plain: theirs } = await plainAnswer((c) =>
          c.send(
            new GetItemCommand({ TableName: TABLE, Key, ConsistentRead: true, ...(projection && { ProjectionExpression: projection }) }),
          ),
        );
        expect(mine).toEqual(theirs);
      }
  });

  it('BatchGetItem of present and absent items, and refusals', async () => {
    const keys = [...present().filter((_, i) => i % 7 === 0), keyOf('b', '77')];
    const sorted = (answer: object) =>
      JSON.parse(JSON.stringify(answer), (k, v) =>
        k === TABLE && Array.isArray(v) ? [...v].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))) : v,
      );
    const asks: BatchGetItemCommandInput[] = [
      { RequestItems: { [TABLE]: { Keys: keys, ConsistentRead: true } } },
      { RequestItems: { [TABLE]: { Keys: keys.slice(0, 5), ProjectionExpression: 'pk, sk, tag' } } },
      { RequestItems: { [TABLE]: { Keys: [keyOf('a', '00#x'), keyOf('a', '00#x')] } } },
      { RequestItems: { 'no-such-table': { Keys: [keyOf('a', '00#x')] } } },
    ];
    for (const input of asks) {
      const { ours: mine, plain: theirs } = await plainAnswer((c) => c.send(new BatchGetItemCommand(input)));
      expect(sorted(mine)).toEqual(sorted(theirs));
    }
  });

  it('GetItem refusals: a key of the wrong shape, a table that does not exist', async () => {
    const asks: GetItemCommandInput[] = [
      { TableName: TABLE, Key: { pk: { S: 'a' } } },
      { TableName: TABLE, Key: { pk: { N: '1' }, sk: { S: '00#x' } } },
      { TableName: 'no-such-table', Key: keyOf('a', '00#x') },
    ];
    for (const input of asks) {
      const { ours: mine, plain: theirs } = await plainAnswer((c) => c.send(new GetItemCommand(input)));
      expect(mine).toEqual(theirs);
      expect(mine).toHaveProperty('error');
    }
  });
});

describe('a conditional write of the embedded DynamoDB answers as dynalite does', () => {
  const NAMES: Record<string, string> = { '#n': 'n', '#s': 's', '#tags': 'tags', '#l': 'l', '#x': 'x' };
  const UPDATES = [
    'SET #n = if_not_exists(#n, :zero) + :inc',
    'ADD #n :inc',
    'ADD #tags :set',
    'DELETE #tags :set',
    'SET #s = :v REMOVE #x',
    'SET #l = list_append(if_not_exists(#l, :empty), :v)',
  ];
  const CONDITIONS = [
    'attribute_not_exists(pk) OR #n < :limit',
    '#n BETWEEN :lo AND :hi',
    'attribute_type(#s, :t)',
    'begins_with(#s, :v)',
    'size(#s) > :limit',
    'contains(#tags, :v)',
    'NOT (#n = :inc) AND attribute_exists(#s)',
  ];
  const anyValue: fc.Arbitrary<AttributeValue> = fc.oneof(
    fc.integer({ min: -5, max: 9 }).map((n) => ({ N: String(n) })),
    fc.constantFrom('a', 'ab', 'b', 'S', 'N', 'x').map((S) => ({ S })),
    fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }).map((SS) => ({ SS })),
    fc.uniqueArray(fc.constantFrom('1', '2', '3'), { minLength: 1, maxLength: 2 }).map((NS) => ({ NS })),
    fc.constantFrom<AttributeValue>({ L: [{ S: 'a' }] }, { L: [] }, { BOOL: true }, { NULL: true }, { M: { k: { S: 'v' } } }),
  );
  const step = fc.record({
    kind: fc.constantFrom('update', 'update', 'update', 'put', 'delete', 'filter'),
    update: fc.constantFrom(...UPDATES),
    condition: fc.option(fc.constantFrom(...CONDITIONS), { nil: undefined }),
    values: fc.dictionary(fc.constantFrom(':zero', ':inc', ':set', ':v', ':empty', ':limit', ':lo', ':hi', ':t'), anyValue),
    returns: fc.constantFrom(undefined, 'ALL_NEW' as const, 'ALL_OLD' as const, 'UPDATED_NEW' as const),
  });
  const used = (expressions: (string | undefined)[], pattern: RegExp) =>
    [...new Set(expressions.flatMap((e) => (e ? (e.match(pattern) ?? []) : [])))] as string[];
  let run = 0;

  it('for random sequences of updates, puts, deletes and filters', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const Key = { pk: { S: `writes-${run++}` }, sk: { S: 'item' } };
        for (const st of steps) {
          const expressions = st.kind === 'update' ? [st.update, st.condition] : [st.condition];
          if (st.kind === 'filter') expressions[0] = '#n > :inc';
          const names = Object.fromEntries(used(expressions, /#\w+/g).map((n) => [n, NAMES[n]!]));
          // Mostly the values the expressions name, of the types they were drawn with; missing ones are refusals too.
          const values = Object.fromEntries(Object.entries(st.values).filter(([v]) => used(expressions, /:\w+/g).includes(v)));
          const common = {
            TableName: TABLE,
            ...(Object.keys(names).length && { ExpressionAttributeNames: names }),
            ...(Object.keys(values).length && { ExpressionAttributeValues: values }),
          };
          const send = async (c: DynamoDBClient) => {
            try {
              const out =
                st.kind === 'update'
                  ? await c.send(
                      new UpdateItemCommand({
                        ...common,
                        Key,
                        UpdateExpression: st.update,
                        ...(st.condition && { ConditionExpression: st.condition }),
                        ...(st.returns && { ReturnValues: st.returns }),
                      }),
                    )
                  : st.kind === 'put'
                    ? await c.send(
                        new PutItemCommand({
                          ...common,
                          Item: { ...Key, n: { N: '1' }, s: { S: 'ab' } },
                          ...(st.condition && { ConditionExpression: st.condition }),
                          ...(st.returns === 'ALL_OLD' && { ReturnValues: st.returns }),
                        }),
                      )
                    : st.kind === 'delete'
                      ? await c.send(
                          new DeleteItemCommand({
                            ...common,
                            Key,
                            ...(st.condition && { ConditionExpression: st.condition }),
                            ...(st.returns === 'ALL_OLD' && { ReturnValues: st.returns }),
                          }),
                        )
                      : await c.send(
                          new QueryCommand({
                            ...common,
                            KeyConditionExpression: 'pk = :pk',
                            ExpressionAttributeValues: { ...values, ':pk': Key.pk },
                            FilterExpression: '#n > :inc',
                            ExpressionAttributeNames: { '#n': 'n' },
                          }),
                        );
              const { $metadata: _, ...rest } = out;
              return { ok: rest };
            } catch (err) {
              return { error: (err as Error).name, message: (err as Error).message };
            }
          };
          const [mine, theirs] = [await send(clients.ours), await send(clients.plain)];
          expect(mine).toEqual(theirs);
        }
        const read = (c: DynamoDBClient) => c.send(new GetItemCommand({ TableName: TABLE, Key, ConsistentRead: true })).then((o) => o.Item);
        expect(await read(clients.ours)).toEqual(await read(clients.plain));
      }),
      { numRuns: 120 },
    );
  });
});
