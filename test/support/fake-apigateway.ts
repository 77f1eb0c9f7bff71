/**
 * A local fake of API Gateway's management REST API (the control plane, which cannot run locally), speaking the
 * documented contract of the calls asof makes (https://docs.aws.amazon.com/apigateway/latest/api/):
 *   GET    /usageplans?position&limit            GetUsagePlans      200 {item: UsagePlan[], position?}
 *   POST   /usageplans/{usagePlanId}/keys        CreateUsagePlanKey 201 UsagePlanKey {id, type, value, name}
 *   POST   /apikeys                              CreateApiKey       201 ApiKey
 *   GET    /apikeys?name&includeValues&position&limit  GetApiKeys   200 {item: ApiKey[], position?}
 *   PATCH  /apikeys/{apiKey}                     UpdateApiKey       200 ApiKey
 *   DELETE /apikeys/{apiKey}                     DeleteApiKey       202
 * Requests must be SigV4-signed for the `apigateway` service. Errors are restJson1: the status, the error type in
 * `x-amzn-ErrorType`, `{message}` in the body (BadRequestException 400, NotFoundException 404, ConflictException 409,
 * ServiceUnavailableException 503). The rules the service documents and asof relies on are enforced: key values
 * are unique and 20-128 alphanumeric characters, a key joins at most one usage plan of a stage (all plans here
 * serve the same stage), `name` filters keys by prefix (so callers must compare names themselves), a page holds at
 * most 500 items (`pageCap` lowers that to exercise paging).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Operation = 'GetUsagePlans' | 'CreateUsagePlanKey' | 'CreateApiKey' | 'GetApiKeys' | 'UpdateApiKey' | 'DeleteApiKey';

export interface FakeApiKey {
  id: string;
  name: string;
  value: string;
  enabled: boolean;
  description?: string;
  tags: Record<string, string>;
  createdDate: number;
  lastUpdatedDate: number;
}

export interface FakeUsagePlan {
  id: string;
  name: string;
  /** Ids of the API keys on the plan. */
  keys: Set<string>;
}

export interface AwsError {
  status: number;
  type: string;
  message?: string;
}

export interface FakeApiGateway {
  url: string;
  apiKeys: Map<string, FakeApiKey>;
  usagePlans: FakeUsagePlan[];
  /** Every request received, as `Operation` (or `METHOD path` when it matched none). */
  requests: string[];
  /** The most items a list page holds (the service's own cap is 500). */
  pageCap: number;
  addUsagePlan(name: string): FakeUsagePlan;
  /** Fails the next `times` calls of `operation` with `error` (Infinity: until clearFailures). */
  fail(operation: Operation, error: AwsError, times?: number): void;
  clearFailures(): void;
  /** The keys on the plan of that name. */
  keysOn(planName: string): FakeApiKey[];
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const notFound = (what: string) => new HttpError(404, 'NotFoundException', what);
const badRequest = (what: string) => new HttpError(400, 'BadRequestException', what);
const conflict = (what: string) => new HttpError(409, 'ConflictException', what);

const newId = () => randomBytes(5).toString('hex');
const epochSeconds = () => Math.floor(Date.now() / 1000);

export async function startFakeApiGateway(): Promise<FakeApiGateway> {
  const failures = new Map<Operation, { error: AwsError; left: number }>();
  const fake: FakeApiGateway = {
    url: '',
    apiKeys: new Map(),
    usagePlans: [],
    requests: [],
    pageCap: 500,
    addUsagePlan(name) {
      const plan = { id: newId(), name, keys: new Set<string>() };
      fake.usagePlans.push(plan);
      return plan;
    },
    fail(operation, error, times = 1) {
      failures.set(operation, { error, left: times });
    },
    clearFailures() {
      failures.clear();
    },
    keysOn(planName) {
      const plan = fake.usagePlans.find((p) => p.name === planName);
      return plan ? [...plan.keys].map((id) => fake.apiKeys.get(id)!) : [];
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };

  const representKey = (key: FakeApiKey, includeValue: boolean) => {
    const { value, ...rest } = key;
    return { ...rest, stageKeys: [], ...(includeValue && { value }) };
  };
  const representPlan = (plan: FakeUsagePlan) => ({
    id: plan.id,
    name: plan.name,
    apiStages: [{ apiId: 'fakeapi', stage: 'v1' }],
    throttle: {},
  });

  /** One page of `items` from `position` (an offset this fake issued). */
  function page<T>(items: T[], query: URLSearchParams) {
    const start = Number(query.get('position') ?? 0);
    const limit = Math.min(Number(query.get('limit') ?? 25), 500, fake.pageCap);
    if (!Number.isInteger(start) || start < 0) throw badRequest('Invalid position');
    const slice = items.slice(start, start + limit);
    return { item: slice, ...(start + limit < items.length && { position: String(start + limit) }) };
  }

  const handlers: Array<{
    op: Operation;
    method: string;
    path: RegExp;
    run(match: string[], query: URLSearchParams, body: any): [number, unknown];
  }> = [
    {
      op: 'GetUsagePlans',
      method: 'GET',
      path: /^\/usageplans$/,
      run: (_, query) => [200, page(fake.usagePlans.map(representPlan), query)],
    },
    {
      op: 'CreateUsagePlanKey',
      method: 'POST',
      path: /^\/usageplans\/([^/]+)\/keys$/,
      run: ([planId], _, body) => {
        const plan = fake.usagePlans.find((p) => p.id === planId);
        if (!plan) throw notFound('Invalid Usage Plan ID specified');
        if (body.keyType !== 'API_KEY') throw badRequest('Invalid key type specified');
        const key = fake.apiKeys.get(body.keyId);
        if (!key) throw notFound('Invalid API Key identifier specified');
        if (fake.usagePlans.some((p) => p.keys.has(key.id)))
          throw conflict('API Key is already associated with a usage plan of this stage');
        plan.keys.add(key.id);
        return [201, { id: key.id, type: 'API_KEY', value: key.value, name: key.name }];
      },
    },
    {
      op: 'CreateApiKey',
      method: 'POST',
      path: /^\/apikeys$/,
      run: (_, __, body) => {
        const value: string = body.value ?? randomBytes(30).toString('base64url').replace(/[-_]/g, 'x');
        if (!/^[0-9A-Za-z]{20,128}$/.test(value))
          throw badRequest('API Key value should be at least 20 alphanumeric characters and at most 128');
        if ([...fake.apiKeys.values()].some((k) => k.value === value)) throw conflict('API Key already exists');
        const now = epochSeconds();
        const key: FakeApiKey = {
          id: newId(),
          name: body.name ?? '',
          value,
          enabled: body.enabled === true,
          description: body.description,
          tags: body.tags ?? {},
          createdDate: now,
          lastUpdatedDate: now,
        };
        fake.apiKeys.set(key.id, key);
        return [201, representKey(key, true)];
      },
    },
    {
      op: 'GetApiKeys',
      method: 'GET',
      path: /^\/apikeys$/,
      run: (_, query) => {
        const name = query.get('name');
        const keys = [...fake.apiKeys.values()].filter((k) => !name || k.name.startsWith(name));
        return [
          200,
          page(
            keys.map((k) => representKey(k, query.get('includeValues') === 'true')),
            query,
          ),
        ];
      },
    },
    {
      op: 'UpdateApiKey',
      method: 'PATCH',
      path: /^\/apikeys\/([^/]+)$/,
      run: ([id], _, body) => {
        const key = fake.apiKeys.get(id!);
        if (!key) throw notFound('Invalid API Key identifier specified');
        for (const op of body.patchOperations ?? []) {
          if (op.op !== 'replace') throw badRequest(`Invalid patch operation specified: ${op.op}`);
          if (op.path === '/enabled') key.enabled = op.value === 'true';
          else if (op.path === '/name') key.name = op.value;
          else if (op.path === '/description') key.description = op.value;
          else throw badRequest(`Invalid patch path ${op.path}`);
        }
        key.lastUpdatedDate = epochSeconds();
        return [200, representKey(key, false)];
      },
    },
    {
      op: 'DeleteApiKey',
      method: 'DELETE',
      path: /^\/apikeys\/([^/]+)$/,
      run: ([id]) => {
        if (!fake.apiKeys.delete(id!)) throw notFound('Invalid API Key identifier specified');
        for (const plan of fake.usagePlans) plan.keys.delete(id!);
        return [202, null];
      },
    },
  ];

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body === null ? '' : JSON.stringify(body));
      };
      const url = new URL(req.url ?? '/', 'http://fake');
      const handler = handlers.find((h) => h.method === req.method && h.path.test(url.pathname));
      fake.requests.push(handler?.op ?? `${req.method} ${url.pathname}`);
      try {
        if (!/^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[^/]+\/apigateway\/aws4_request/.test(req.headers.authorization ?? '')) {
          throw new HttpError(403, 'UnrecognizedClientException', 'Missing or invalid SigV4 signature for apigateway');
        }
        if (!handler) throw notFound(`No operation at ${req.method} ${url.pathname}`);
        const failure = failures.get(handler.op);
        if (failure && failure.left > 0) {
          failure.left -= 1;
          throw new HttpError(failure.error.status, failure.error.type, failure.error.message ?? `${handler.op} failed (injected)`);
        }
        const match = handler.path.exec(url.pathname)!.slice(1).map(decodeURIComponent);
        const [status, body] = handler.run(match, url.searchParams, raw ? JSON.parse(raw) : {});
        send(status, body);
      } catch (err) {
        if (!(err instanceof HttpError)) return send(500, { message: String(err) }, { 'x-amzn-ErrorType': 'InternalFailure' });
        send(err.status, { message: err.message }, { 'x-amzn-ErrorType': err.type });
      }
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
