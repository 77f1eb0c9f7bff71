/**
 * TransactWriteItems for the embedded DynamoDB. dynalite 4 does not carry it (it answers UnknownOperationException),
 * so the door (dynalite-server.ts) answers it on dynalite's own store, with dynalite's own code for everything but
 * the all-or-nothing: each operation is validated as dynalite validates a PutItem or DeleteItem, its condition is
 * parsed and evaluated by dynalite, and its item is locked with dynalite's item locks, so the transaction is
 * isolated from every other write. Only when every condition holds are the items written, in one LevelDB batch per
 * table (atomic); otherwise nothing is written and the answer is DynamoDB's TransactionCanceledException with one
 * cancellation reason per operation. Put, Delete and ConditionCheck are carried; Update is refused by name, as is a
 * request over DynamoDB's limits (100 operations, two on one item).
 */
import { createRequire } from 'node:module';

type Item = Record<string, unknown>;
type Callback<T = unknown> = (err: DynaliteError | null, value?: T) => void;
interface DynaliteError extends Error {
  statusCode?: number;
  body?: { __type: string; message: string };
}

interface ItemDb {
  get(key: string, cb: Callback<Item | undefined>): void;
  batch(ops: ({ type: 'put'; key: string; value: Item } | { type: 'del'; key: string })[], cb: Callback): void;
  lock(keys: string[], exec: (release: (done: () => void) => () => void) => void): void;
}

/** The part of dynalite's store (db.create) used here. */
export interface DynaliteStore {
  getTable(name: string, cb: Callback<object>): void;
  getItemDb(name: string): ItemDb;
}

interface Validation {
  types: object;
  custom: (data: Item, store: DynaliteStore) => string | undefined;
}

interface DynaliteDb {
  validateItem(item: unknown, table: object): DynaliteError | null | undefined;
  validateKey(key: unknown, table: object): DynaliteError | null | undefined;
  createKey(item: unknown, table: object): string;
  checkConditional(data: Item, existing: Item | undefined): DynaliteError | null | undefined;
  updateIndexes(store: DynaliteStore, table: object, existing: Item | undefined, item: Item | undefined, cb: Callback): void;
}

const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
const db = fromDynalite('./db') as DynaliteDb;
const validations = fromDynalite('./validations') as {
  checkTypes(data: Item, types: object): Item;
  checkValidations(data: Item, types: object, custom: Validation['custom'], store: DynaliteStore): void;
};
const putItemRules = fromDynalite('./validations/putItem') as Validation;
const deleteItemRules = fromDynalite('./validations/deleteItem') as Validation;

/** DynamoDB's cap on the operations of one transaction. */
const MAX_OPERATIONS = 100;

export interface Answer {
  status: number;
  body: object;
}

type Kind = 'Put' | 'Delete' | 'ConditionCheck';

interface Operation {
  kind: Kind;
  table: string;
  /** The operation as dynalite's PutItem or DeleteItem takes it, validated (its condition parsed). */
  request: Item;
  key: string;
  tableDescription: object;
}

class Refused extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const validationError = (message: string) => new Refused('com.amazon.coral.validate#ValidationException', message);

const asAnswer = (err: unknown): Answer => {
  if (err instanceof Refused) return { status: 400, body: { __type: err.type, message: err.message } };
  const e = err as DynaliteError;
  if (e?.statusCode && e.body) return { status: e.statusCode, body: e.body };
  throw err;
};

const call = <T>(fn: (cb: Callback<T>) => void): Promise<T | undefined> =>
  new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));

/** Answers one TransactWriteItems request (its parsed body) on `store`. */
export async function transactWriteItems(store: DynaliteStore, data: unknown): Promise<Answer> {
  try {
    const operations = await planned(store, data);
    return await applyAllOrNothing(store, operations);
  } catch (err) {
    return asAnswer(err);
  }
}

async function planned(store: DynaliteStore, data: unknown): Promise<Operation[]> {
  const items = (data as { TransactItems?: unknown } | null)?.TransactItems;
  if (!Array.isArray(items) || items.length < 1 || items.length > MAX_OPERATIONS) {
    throw validationError(
      `1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length between 1 and ${MAX_OPERATIONS}`,
    );
  }
  const operations: Operation[] = [];
  const targets = new Set<string>();
  for (const element of items as Record<string, unknown>[]) {
    const kinds = Object.keys(element ?? {}).filter((k) => element[k] != null);
    if (kinds.length !== 1) throw validationError('TransactItems can only contain one of Check, Put, Update or Delete');
    const kind = kinds[0]!;
    if (kind === 'Update') {
      throw validationError('The embedded DynamoDB carries Put, Delete and ConditionCheck in TransactWriteItems, not Update');
    }
    if (kind !== 'Put' && kind !== 'Delete' && kind !== 'ConditionCheck') throw validationError(`Unknown transaction operation ${kind}`);
    const operation = await planOne(store, kind, element[kind] as Item);
    const target = `${operation.table}\u0000${operation.key}`;
    if (targets.has(target)) throw validationError('Transaction request cannot include multiple operations on one item');
    targets.add(target);
    operations.push(operation);
  }
  return operations;
}

async function planOne(store: DynaliteStore, kind: Kind, given: Item): Promise<Operation> {
  if (kind === 'ConditionCheck' && typeof given.ConditionExpression !== 'string') {
    throw validationError('A ConditionCheck must have a ConditionExpression');
  }
  const { ReturnValuesOnConditionCheckFailure: _ignored, ...fields } = given;
  const rules = kind === 'Put' ? putItemRules : deleteItemRules;
  const request = validations.checkTypes(fields, rules.types);
  validations.checkValidations(request, rules.types, rules.custom, store);
  const table = request.TableName as string;
  const tableDescription = (await call<object>((cb) => store.getTable(table, cb)))!;
  const invalid = kind === 'Put' ? db.validateItem(request.Item, tableDescription) : db.validateKey(request.Key, tableDescription);
  if (invalid) throw invalid;
  const key = db.createKey(kind === 'Put' ? request.Item : request.Key, tableDescription);
  return { kind, table, request, key, tableDescription };
}

/** Locks every item (table by table, in name order), checks every condition, then writes all or nothing. */
async function applyAllOrNothing(store: DynaliteStore, operations: Operation[]): Promise<Answer> {
  const byTable = new Map<string, Operation[]>();
  for (const op of operations) byTable.set(op.table, [...(byTable.get(op.table) ?? []), op]);
  const tables = [...byTable.keys()].sort();
  const releases: (() => void)[] = [];
  try {
    for (const table of tables) {
      const keys = byTable.get(table)!.map((op) => op.key);
      releases.push(await new Promise<() => void>((resolve) => store.getItemDb(table).lock(keys, (release) => resolve(release(() => {})))));
    }
    const stored = await Promise.all(operations.map((op) => call<Item | undefined>((cb) => store.getItemDb(op.table).get(op.key, cb))));
    const existing = new Map(operations.map((op, i) => [op, stored[i]]));
    const reasons = operations.map((op) =>
      db.checkConditional(op.request, existing.get(op))
        ? { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }
        : { Code: 'None' },
    );
    if (reasons.some((r) => r.Code !== 'None')) {
      return {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
          message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
          CancellationReasons: reasons,
        },
      };
    }
    for (const table of tables) {
      const ops = byTable.get(table)!.filter((op) => op.kind !== 'ConditionCheck');
      for (const op of ops) {
        const item = op.kind === 'Put' ? (op.request.Item as Item) : undefined;
        await call((cb) => db.updateIndexes(store, op.tableDescription, existing.get(op), item, cb));
      }
      const batch = ops.map((op) =>
        op.kind === 'Put' ? { type: 'put' as const, key: op.key, value: op.request.Item as Item } : { type: 'del' as const, key: op.key },
      );
      if (batch.length) await call((cb) => store.getItemDb(table).batch(batch, cb));
    }
    return { status: 200, body: {} };
  } finally {
    for (const release of releases.reverse()) release();
  }
}
