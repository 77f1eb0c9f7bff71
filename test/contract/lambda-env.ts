import { TABLE_ENV } from '#lambda/env.ts';
import type { TableKind } from '#stores/dynamodb/tables.ts';

/**
 * The environment a deployed function gets, pointed at the embedded DynamoDB: a region and credentials that never
 * reach AWS, Powertools quiet and untraced, and the tables given (a function is bound to those alone); `extra` adds or
 * overrides the rest (addresses, a metrics switch).
 */
export function deployedLambdaEnv(
  dynamoEndpoint: string,
  tables: Partial<Record<TableKind, string>>,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    POWERTOOLS_DEV: 'true',
    POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_TRACE_ENABLED: 'false',
    ...Object.fromEntries(Object.entries(tables).map(([kind, name]) => [TABLE_ENV[kind as TableKind], name])),
    ...extra,
  };
}
