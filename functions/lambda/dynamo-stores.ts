import { DynamoAccountStore } from '#stores/dynamodb/account-store.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { DynamoFormatStore } from '#stores/dynamodb/format-store.ts';
import { DynamoMeterStore } from '#stores/dynamodb/meter-store.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { type LambdaEnv, regionOf, TABLE_ENV } from './env.ts';
import { captureClient } from './powertools.ts';

/**
 * The DynamoDB-backed stores of the tables bound to this function (null for a table it was not given). A route or
 * page function bounds each call well inside its own timeout (`request-path`); a job allows large batches time.
 */
export function dynamoStores(env: LambdaEnv, bound: 'request-path' | 'job') {
  const doc = createDocumentClient({ region: regionOf(env), capture: captureClient, bound });
  const table = (kind: keyof typeof TABLE_ENV) => env[TABLE_ENV[kind]] ?? null;
  const versions = table('versions');
  const accounts = table('accounts');
  const meters = table('meters');
  const ops = table('ops');
  return {
    versions: versions ? new DynamoVersionStore(doc, versions) : null,
    accounts: accounts ? new DynamoAccountStore(doc, accounts) : null,
    meters: meters ? new DynamoMeterStore(doc, meters) : null,
    ops: ops ? new DynamoOpsStore(doc, ops) : null,
    formats: ops ? new DynamoFormatStore(doc, ops) : null,
    opsTable: ops,
  };
}
