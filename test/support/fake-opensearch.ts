/**
 * A local fake of the part of OpenSearch's REST API the setup job uses (OpenSearch cannot run on these machines):
 * HEAD /<index> (200 or 404), PUT /<index> (create; 400 resource_already_exists_exception when it exists),
 * PUT /<index>/_settings (404 index_not_found_exception without the index), and the security plugin's
 * PUT /_plugins/_security/api/roles/<name> and .../rolesmapping/<name> (201 CREATED, then 200 OK: a PUT replaces).
 * It records every request, with its Authorization header, and can be told to refuse a path with a status, the way a
 * domain refuses a caller that is not its master user.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  authorization: string | undefined;
}

export interface FakeOpenSearch {
  url: string;
  requests: RecordedRequest[];
  indices: Map<string, unknown>;
  settings: Map<string, Record<string, unknown>>;
  roles: Map<string, unknown>;
  rolesMapping: Map<string, unknown>;
  /** Paths (prefixes) answered with this status and a security_exception instead. */
  refuse: Map<string, number>;
  close(): Promise<void>;
}

export async function startFakeOpenSearch(): Promise<FakeOpenSearch> {
  const fake: FakeOpenSearch = {
    url: '',
    requests: [],
    indices: new Map(),
    settings: new Map(),
    roles: new Map(),
    rolesMapping: new Map(),
    refuse: new Map(),
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      const body = raw ? (JSON.parse(raw) as unknown) : undefined;
      fake.requests.push({ method: req.method ?? '', path, body, authorization: req.headers.authorization });
      const send = (status: number, answer?: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(answer === undefined || req.method === 'HEAD' ? undefined : JSON.stringify(answer));
      };
      const refused = [...fake.refuse].find(([prefix]) => path.startsWith(prefix));
      if (refused)
        return send(refused[1], { error: { type: 'security_exception', reason: `no permissions for [${path}]` }, status: refused[1] });

      const security = /^\/_plugins\/_security\/api\/(roles|rolesmapping)\/([^/]+)$/.exec(path);
      if (security && req.method === 'PUT') {
        const store = security[1] === 'roles' ? fake.roles : fake.rolesMapping;
        const existed = store.has(security[2]!);
        store.set(security[2]!, body);
        return send(existed ? 200 : 201, {
          status: existed ? 'OK' : 'CREATED',
          message: `'${security[2]}' ${existed ? 'updated' : 'created'}.`,
        });
      }
      const settings = /^\/([^/_][^/]*)\/_settings$/.exec(path);
      if (settings && req.method === 'PUT') {
        if (!fake.indices.has(settings[1]!))
          return send(404, { error: { type: 'index_not_found_exception', index: settings[1] }, status: 404 });
        fake.settings.set(settings[1]!, { ...fake.settings.get(settings[1]!), ...(body as Record<string, unknown>) });
        return send(200, { acknowledged: true });
      }
      const index = /^\/([^/_][^/]*)$/.exec(path);
      if (index && req.method === 'HEAD') return send(fake.indices.has(index[1]!) ? 200 : 404);
      if (index && req.method === 'PUT') {
        if (fake.indices.has(index[1]!))
          return send(400, { error: { type: 'resource_already_exists_exception', index: index[1] }, status: 400 });
        fake.indices.set(index[1]!, body);
        return send(200, { acknowledged: true, shards_acknowledged: true, index: index[1] });
      }
      send(404, { error: { type: 'unsupported_by_fake', reason: `${req.method} ${path}` }, status: 404 });
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
