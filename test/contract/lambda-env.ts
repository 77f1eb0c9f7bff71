import type { Context } from 'aws-lambda';
import { TABLE_ENV } from '#lambda/env.ts';
import type { LocalDynamoAccess } from '#stores/dynamodb/client.ts';
import type { TableKind } from '#stores/dynamodb/tables.ts';

/**
 * The environment a deployed function gets, pointed at the embedded DynamoDB: a region, and the credentials the
 * embedded DynamoDB accepts (they never reach AWS), Powertools quiet and untraced, and the tables given (a function is bound to those alone); `extra` adds or
 * overrides the rest (addresses, a metrics switch).
 */
export function deployedLambdaEnv(
  dynamo: LocalDynamoAccess,
  tables: Partial<Record<TableKind, string>>,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: dynamo.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: dynamo.credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    POWERTOOLS_DEV: 'true',
    POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_TRACE_ENABLED: 'false',
    ...Object.fromEntries(Object.entries(tables).map(([kind, name]) => [TABLE_ENV[kind as TableKind], name])),
    ...extra,
  };
}

/** The invocation context a handler is given (its request id and name `id`, the whole 15 minutes ahead of it). */
export const lambdaContext = (id: string) =>
  ({
    awsRequestId: id,
    functionName: id,
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 900_000,
  }) as unknown as Context;
