import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { AccountStore, GatewayKeys, MeterStore } from '#accounts/ports.ts';
import { ApiGatewayKeys } from '#stores/apigateway/gateway-keys.ts';
import { DynamoAccountStore } from '#stores/dynamodb/account-store.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { DynamoMeterStore } from '#stores/dynamodb/meter-store.ts';
import { tableNames } from '#stores/dynamodb/tables.ts';

/** A deployed stage as the `asof keys … --stage` commands reach it (bin/asof.ts builds it from bin/stages.ts). */
export interface StageTarget {
  /** The stage's name, e.g. dev. */
  name: string;
  /** Its resource prefix: tables `${prefix}-accounts` and `${prefix}-meters`, usage plans `${prefix}-${tier}`. */
  prefix: string;
  /** Its AWS region; undefined = the environment's (AWS_REGION, the profile). */
  region?: string;
}

export interface StageAccounts {
  store: AccountStore;
  meters: MeterStore;
  gateway: GatewayKeys;
  close(): Promise<void>;
}

/**
 * A stage's accounts and meters tables (DynamoDB) and its gateway keys (API Gateway), with the AWS SDK's credentials
 * and endpoints (AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL_API_GATEWAY point them elsewhere).
 */
export function openStageAccounts(target: StageTarget): StageAccounts {
  const region = target.region ? { region: target.region } : {};
  const doc = createDocumentClient(region);
  const apiGateway = new APIGatewayClient(region);
  const tables = tableNames(target.prefix);
  return {
    store: new DynamoAccountStore(doc, tables.accounts),
    meters: new DynamoMeterStore(doc, tables.meters),
    gateway: new ApiGatewayKeys(apiGateway, target.prefix),
    async close() {
      doc.destroy();
      apiGateway.destroy();
    },
  };
}
