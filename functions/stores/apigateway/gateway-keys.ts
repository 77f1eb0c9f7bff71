import {
  type APIGatewayClient,
  type ApiKey,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  paginateGetApiKeys,
  paginateGetUsagePlans,
  UpdateApiKeyCommand,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import { usagePlanName } from '#accounts/gateway-tier.ts';
import type { ApiKeyRecord, GatewayKeys } from '#accounts/ports.ts';

/** The largest page API Gateway's list calls return. */
const PAGE = 500;

/**
 * The GatewayKeys of a deployed stage on API Gateway's management API: an API key per asof key (name = key id,
 * value = the key's SHA-256 hex, which fits API Gateway's 20-128 alphanumeric characters), attached to the usage
 * plan `${prefix}-${tier}` the stage's stack built (lib/law-api.ts).
 */
export class ApiGatewayKeys implements GatewayKeys {
  constructor(
    private readonly client: APIGatewayClient,
    /** The stage's resource prefix, e.g. asof-dev. */
    private readonly prefix: string,
  ) {}

  async register(record: ApiKeyRecord, tier: string): Promise<void> {
    // The plan first: a stage that is not deployed (or a tier it lacks) fails before anything is created.
    const usagePlanId = await this.usagePlanId(tier);
    const key = await this.client.send(
      new CreateApiKeyCommand({
        name: record.id,
        value: record.hash,
        enabled: true,
        description: `asof key ${record.prefix}… (${record.test ? 'test' : 'live'}); issued by asof keys create`,
        tags: { 'asof:key-id': record.id, 'asof:tier': tier, 'asof:stage': this.prefix },
      }),
    );
    if (!key.id) throw new Error(`API Gateway created the key of ${record.id} without an id`);
    try {
      await this.client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
    } catch (err) {
      // An API key on no usage plan opens nothing, but it would be left for nobody to find: take it back.
      await this.client.send(new DeleteApiKeyCommand({ apiKey: key.id })).catch(() => undefined);
      throw err;
    }
  }

  async disable(keyId: string): Promise<boolean> {
    const keys = await this.keysNamed(keyId);
    for (const key of keys) {
      if (key.enabled === false || !key.id) continue;
      await this.client.send(
        new UpdateApiKeyCommand({ apiKey: key.id, patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }] }),
      );
    }
    return keys.length > 0;
  }

  private async usagePlanId(tier: string): Promise<string> {
    const name = usagePlanName(this.prefix, tier);
    const plans: UsagePlan[] = [];
    for await (const page of paginateGetUsagePlans({ client: this.client, pageSize: PAGE }, {})) plans.push(...(page.items ?? []));
    const named = plans.filter((p) => p.name === name);
    if (named.length !== 1 || !named[0]!.id) {
      throw new Error(
        named.length
          ? `${named.length} usage plans are named ${name}; expected one`
          : `no usage plan named ${name}: is the stage deployed?`,
      );
    }
    return named[0]!.id;
  }

  /** API Gateway's name query is not an exact match: the names are compared here. */
  private async keysNamed(name: string): Promise<ApiKey[]> {
    const keys: ApiKey[] = [];
    for await (const page of paginateGetApiKeys({ client: this.client, pageSize: PAGE }, { nameQuery: name, includeValues: false })) {
      keys.push(...(page.items ?? []).filter((k) => k.name === name));
    }
    return keys;
  }
}
