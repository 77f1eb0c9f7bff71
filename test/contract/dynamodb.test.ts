import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { lookupVersion } from '#law/lookup.ts';
import { OPEN_END } from '#law/model.ts';
import { type AppError, StoreUnavailableError } from '#shared/errors.ts';
import { DynamoAccountStore, idItemKey } from '#stores/dynamodb/account-store.ts';
import { createDocumentClient, itemBytes, toStoreError } from '#stores/dynamodb/client.ts';
import { startDynalite } from '#stores/dynamodb/dynalite.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { describeAccountStoreContract, keyRecord } from './account-store.contract.ts';
import { useDynaliteTables } from './dynalite-tables.ts';
import { describeOpsStoreContract } from './ops-store.contract.ts';
import { bigHistoryOf, bodyOf, describeVersionStoreContract, historyOf, refOf, versionOf } from './version-store.contract.ts';

const dynamo = useDynaliteTables('contract');
const freshTables = () => dynamo.fresh();

describeVersionStoreContract('DynamoDB on dynalite', async () => new DynamoVersionStore(dynamo.doc, (await freshTables()).versions));
describeOpsStoreContract('DynamoDB on dynalite', async () => new DynamoOpsStore(dynamo.doc, (await freshTables()).ops));
describeAccountStoreContract('DynamoDB on dynalite', async () => new DynamoAccountStore(dynamo.doc, (await freshTables()).accounts));

describe('DynamoDB adapters: what only this adapter promises', () => {
  it('findInForce is one Query of at most one item, and listVersions never reads texts', async () => {
    // Prepare: a client that records what it sends
    const recording = createDocumentClient(dynamo.access);
    const sent: Array<{ command: string; input: Record<string, unknown> }> = [];
    recording.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push({ command: context.commandName ?? '', input: args.input as Record<string, unknown> });
        return next(args);
      },
      { step: 'initialize', name: 'recordCommands' },
    );
    const store = new DynamoVersionStore(recording, (await freshTables()).versions);
    const r = refOf('1-1');
    await store.applyWrites(
      Array.from({ length: 30 }, (_, i) => ({
        kind: 'put' as const,
        version: versionOf(r, `${1990 + i}-01-02T00:00:00-05:00`, i === 29 ? OPEN_END : `${1991 + i}-01-02T00:00:00-05:00`),
      })),
    );

    // Act
    sent.length = 0;
    const found = await store.findInForce(r, '2005-06-01');
    const lookup = [...sent];
    sent.length = 0;
    await store.listVersions(r);
    const listing = [...sent];
    recording.destroy();

    // Assess
    expect(found?.validFrom).toBe('2005-01-02T00:00:00-05:00');
    expect(lookup.map((s) => s.command)).toEqual(['QueryCommand']);
    expect(lookup[0]!.input).toMatchObject({ Limit: 1, ScanIndexForward: false });
    expect(listing.every((s) => s.command === 'QueryCommand')).toBe(true);
    expect(JSON.stringify(listing.map((s) => [s.input.ProjectionExpression, s.input.ExpressionAttributeNames]))).not.toMatch(
      /bodyText|historyNote/,
    );
  });

  it('a lookup reads the store once when found, and a miss asks whether the corpus is carried only when nothing it read shows it', async () => {
    // Prepare: a client that counts the requests it sends; three keys of Title 1, one with two versions
    const recording = createDocumentClient(dynamo.access);
    let requests = 0;
    recording.middlewareStack.add(
      (next) => async (args) => {
        requests++;
        return next(args);
      },
      { step: 'initialize', name: 'countRequests' },
    );
    const store = new DynamoVersionStore(recording, (await freshTables()).versions);
    // (histories as an ingest leaves them: 1-101 and 1-103 with the one version their summaries name)
    for (const key of ['1-101', '1-103']) await store.putHistory(historyOf(refOf(key)));
    await store.putHistory({ ...historyOf(refOf('1-102')), summary: { ...historyOf(refOf('1-102')).summary, versions: 2 } });
    await store.applyWrites([
      { kind: 'put', version: versionOf(refOf('1-101'), '2024-01-01T00:00:00-05:00', OPEN_END) },
      { kind: 'put', version: versionOf(refOf('1-102'), '2013-07-26T00:00:00-04:00', '2021-06-18T00:00:00-04:00') },
      { kind: 'put', version: versionOf(refOf('1-102'), '2021-06-18T00:00:00-04:00', OPEN_END) },
      { kind: 'put', version: versionOf(refOf('1-103'), '2024-01-01T00:00:00-05:00', OPEN_END) },
    ]);
    const requestsOf = async (citation: string, asOf: string, jurisdiction = 'us') => {
      requests = 0;
      const code = await lookupVersion(store, { jurisdiction, citation, asOf }).then(
        () => 'found',
        (err: AppError) => err.code,
      );
      return [code, requests];
    };

    // Act
    const found = await requestsOf('1-102', '2022-01-01');
    const beforeFirst = await requestsOf('1 U.S.C. § 102', '2000-01-01');
    const unknownKey = await requestsOf('1-999', '2022-01-01');
    const titleNotCarried = await requestsOf('5-101', '2022-01-01');
    const notCarried = await requestsOf('1-101', '2022-01-01', 'dc');
    recording.destroy();

    // Assess: found, one Query; a date before the first version, that Query and the version list, which proves the
    // corpus carried; a key without versions, those two and the keys on either side (two Queries, which read each key's
    // history summary), which prove it too, then one BatchGet of the similar keys with a single version and the list of
    // the one with two; only with no key beside it is carries() asked (one Query more)
    expect(found).toEqual(['found', 1]);
    expect(beforeFirst).toEqual(['no_edition_on_file', 2]);
    expect(unknownKey).toEqual(['no_edition_on_file', 2 + 2 + 1 + 1]);
    expect(titleNotCarried).toEqual(['no_edition_on_file', 2 + 2]);
    expect(notCarried).toEqual(['not_carried', 2 + 2 + 1]);
  });

  it("a miss suggests each similar key's version in force, else its latest, even where a history summary is not what is stored", async () => {
    // Prepare: 1-101's summary names one version starting 2024-01-01, but the one stored starts 2013 (as between an
    // ingest's writes); 1-102 has two versions; 1-103 one, which starts after the date asked
    const store = new DynamoVersionStore(dynamo.doc, (await freshTables()).versions);
    for (const key of ['1-101', '1-103']) await store.putHistory(historyOf(refOf(key)));
    await store.putHistory({ ...historyOf(refOf('1-102')), summary: { ...historyOf(refOf('1-102')).summary, versions: 2 } });
    const stale = versionOf(refOf('1-101'), '2013-07-26T00:00:00-04:00', OPEN_END);
    const ended = versionOf(refOf('1-102'), '2013-07-26T00:00:00-04:00', '2021-06-18T00:00:00-04:00');
    const current = versionOf(refOf('1-102'), '2021-06-18T00:00:00-04:00', OPEN_END);
    const later = versionOf(refOf('1-103'), '2024-01-01T00:00:00-05:00', OPEN_END);
    await store.applyWrites([stale, ended, current, later].map((version) => ({ kind: 'put', version }) as const));

    // Act
    const err: AppError = await lookupVersion(store, { jurisdiction: 'us', citation: '1-999', asOf: '2022-01-01' }).catch((e) => e);

    // Assess
    expect(err.code).toBe('no_edition_on_file');
    expect((err.details.didYouMean as { citation: string; validFrom: string }[]).map((s) => [s.citation, s.validFrom])).toEqual([
      ['1-101', stale.validFrom],
      ['1-102', current.validFrom],
      ['1-103', later.validFrom],
    ]);
  });

  it("the embedded store's client sends no SDK user agent and no Lambda trace id (AWS's clients keep both)", async () => {
    // Prepare: an endpoint that records the headers of what it is sent and answers an empty GetItem; the environment
    // of a Lambda function, where the SDK would copy the trace id into every request
    const seen: Record<string, string | string[] | undefined>[] = [];
    const endpoint = createHttpServer((req, res) => {
      seen.push(req.headers);
      req.resume().once('end', () => res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}'));
    });
    await new Promise<void>((done) => endpoint.listen(0, '127.0.0.1', done));
    const env = { fn: process.env.AWS_LAMBDA_FUNCTION_NAME, trace: process.env._X_AMZN_TRACE_ID };
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'asof-lookup';
    process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
    const local = createDocumentClient({ ...dynamo.access, endpoint: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}` });
    try {
      // Act
      const out = await local.send(new GetCommand({ TableName: 'asof-versions', Key: { pk: 'p', sk: 's' } }));

      // Assess
      expect(out.Item).toBeUndefined();
      expect(seen).toHaveLength(1);
      expect(Object.keys(seen[0]!)).not.toContain('x-amz-user-agent');
      expect(seen[0]!['user-agent'] ?? '').not.toMatch(/aws-sdk/);
      expect(Object.keys(seen[0]!)).not.toContain('x-amzn-trace-id');
      expect(seen[0]!.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
      const names = (c: DynamoDBDocumentClient) => c.middlewareStack.identify().join(' ');
      expect(names(createDocumentClient({ region: 'us-east-1' }))).toMatch(/getUserAgentMiddleware.*recursionDetectionMiddleware/);
    } finally {
      local.destroy();
      if (env.fn === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      else process.env.AWS_LAMBDA_FUNCTION_NAME = env.fn;
      if (env.trace === undefined) delete process.env._X_AMZN_TRACE_ID;
      else process.env._X_AMZN_TRACE_ID = env.trace;
      await new Promise((done) => endpoint.close(done));
    }
  });

  it('refuses a version over 400 KB, naming it, and writes nothing of that call', async () => {
    const store = new DynamoVersionStore(dynamo.doc, (await freshTables()).versions);
    const small = versionOf(refOf('1-2'), '2020-01-01T00:00:00-05:00', OPEN_END);
    const huge = versionOf(refOf('1-3'), '2020-01-01T00:00:00-05:00', OPEN_END, bodyOf(450_000));

    await expect(
      store.applyWrites([
        { kind: 'put', version: small },
        { kind: 'put', version: huge },
      ]),
    ).rejects.toThrow(/us#statutes#1-3.*400/);
    expect(await store.getVersion(small.citation, small.validFrom)).toBeNull();
  });

  it('counts UTF-8 bytes, as DynamoDB does (dynalite counts UTF-16 units and would accept the item)', async () => {
    // Prepare: 210,000 '§' are 210,000 UTF-16 units but 420,000 UTF-8 bytes
    const names = await freshTables();
    const store = new DynamoVersionStore(dynamo.doc, names.versions);
    const v = versionOf(refOf('1-4'), '2020-01-01T00:00:00-05:00', OPEN_END, '§'.repeat(210_000));

    // Act / Assess
    await expect(store.applyWrites([{ kind: 'put', version: v }])).rejects.toThrow(/us#statutes#1-4/);
    await expect(
      dynamo.doc.send(new PutCommand({ TableName: names.versions, Item: { pk: 'raw', sk: 'raw', ...v } })),
    ).resolves.toBeDefined();
    expect(itemBytes({ body: '§'.repeat(10) })).toBe(4 + 20);
  });

  it('refuses a key history over 400 KB, naming the key', async () => {
    const store = new DynamoVersionStore(dynamo.doc, (await freshTables()).versions);
    await expect(store.putHistory(bigHistoryOf(refOf('1-5'), 450_000))).rejects.toThrow(/1-5/);
    expect((await store.getHistories('us', 'statutes', ['1-5'])).size).toBe(0);
  });

  it('treats an id item whose key item was never written (a crash between the two writes) as absent', async () => {
    // Prepare: what a createKey that died after its first write leaves behind
    const names = await freshTables();
    const store = new DynamoAccountStore(dynamo.doc, names.accounts);
    const orphan = keyRecord('key_orphan');
    await dynamo.doc.send(new PutCommand({ TableName: names.accounts, Item: { ...idItemKey(orphan.id), hash: orphan.hash } }));
    await store.createKey(keyRecord('key_live'));

    // Act / Assess
    expect(await store.getById(orphan.id)).toBeNull();
    expect(await store.findByHash(orphan.hash)).toBeNull();
    expect((await store.listKeys()).map((k) => k.id)).toEqual(['key_live']);
    expect(await store.revoke(orphan.id, '2024-06-05T00:00:00.000Z')).toBeNull();
  });

  it('reads an audit run stored before findings were camelCase (check_name, avg_chars …) as today’s findings', async () => {
    // Prepare: an item as an earlier asof wrote it
    const names = await freshTables();
    const run = {
      ranAt: '2026-11-01T04:15:00.000Z',
      jurisdiction: 'us',
      trigger: 'schedule',
      totalChecks: 10,
      passed: 9,
      warned: 1,
      failed: 0,
    };
    const legacy = {
      scope: 'us/statutes/usc',
      check_name: 'size-outliers',
      status: 'warn',
      detail: '1 problem(s): 1-1',
      rows: 39,
      avg_chars: null,
      max_chars: 5120,
      unexplained_empty: 0,
      misattributed: 0,
    };
    await dynamo.doc.send(new PutCommand({ TableName: names.ops, Item: { pk: 'audit#us', sk: run.ranAt, run, findings: [legacy] } }));

    // Act
    const stored = await new DynamoOpsStore(dynamo.doc, names.ops).latestAuditRun('us');

    // Assess
    expect(stored).toEqual({
      run,
      findings: [
        {
          scope: 'us/statutes/usc',
          checkName: 'size-outliers',
          status: 'warn',
          detail: '1 problem(s): 1-1',
          rows: 39,
          avgChars: null,
          maxChars: 5120,
          unexplainedEmpty: 0,
          misattributed: 0,
        },
      ],
    });
  });

  it('ensureTables leaves existing tables (and their items) alone', async () => {
    const names = await freshTables();
    const ops = new DynamoOpsStore(dynamo.doc, names.ops);
    await ops.putHealthVerdict({ checkedAt: '2024-06-01T10:00:00.000Z', reachable: true, detail: 'ok' });
    await ensureTables(dynamo.doc, names);
    expect(await ops.getHealthVerdict()).not.toBeNull();
  });

  it('maps connection-level failures to StoreUnavailableError and leaves the rest alone', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const timeout = Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError' });
    const hangUp = new Error('socket hang up');
    const aggregate = new AggregateError([refused], 'connect failed');
    for (const err of [refused, timeout, hangUp, aggregate]) {
      const mapped = toStoreError('ops', err);
      expect(mapped).toBeInstanceOf(StoreUnavailableError);
      expect((mapped as StoreUnavailableError).store).toBe('ops');
    }
    const conditional = Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
    const validation = Object.assign(new Error('Item size has exceeded the maximum allowed size'), { name: 'ValidationException' });
    expect(toStoreError('ops', conditional)).toBe(conditional);
    expect(toStoreError('ops', validation)).toBe(validation);
  });
});

describe('dynalite lifecycle', () => {
  it('a stopped store surfaces as StoreUnavailableError within a few seconds, on every adapter', async () => {
    // Prepare: live adapters on their own dynalite
    const own = await startDynalite();
    const client = createDocumentClient(own.access);
    const names = tableNames('stopped');
    await ensureTables(client, names);
    const versions = new DynamoVersionStore(client, names.versions);
    const ops = new DynamoOpsStore(client, names.ops);
    const accounts = new DynamoAccountStore(client, names.accounts);
    await versions.ping();
    await versions.applyWrites([{ kind: 'put', version: versionOf(refOf('1-1'), '2020-01-01T00:00:00-05:00', OPEN_END) }]);

    // Act
    await own.close();
    const started = Date.now();
    const outcomes = await Promise.allSettled([
      versions.ping(),
      versions.findInForce(refOf('1-1'), '2024-01-01'),
      ops.ping(),
      ops.getCoverage(),
      accounts.ping(),
      accounts.findByHash('0'.repeat(64)),
    ]);
    const elapsed = Date.now() - started;
    client.destroy();

    // Assess
    const stores = outcomes.map((o) => (o.status === 'rejected' && o.reason instanceof StoreUnavailableError ? o.reason.store : o.status));
    expect(stores).toEqual(['versions', 'versions', 'ops', 'ops', 'accounts', 'accounts']);
    expect(elapsed).toBeLessThan(3_000);
  });

  it('a store that accepts connections but never answers surfaces as StoreUnavailableError after the request timeout', async () => {
    // Prepare: a listener that swallows requests (a frozen server)
    const sockets: Socket[] = [];
    const frozen = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => frozen.listen(0, '127.0.0.1', resolve));
    const { port } = frozen.address() as { port: number };
    const client = createDocumentClient({
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      requestTimeoutMs: 300,
    });
    const store = new DynamoOpsStore(client, 'frozen-ops');

    // Act
    const started = Date.now();
    const outcome = await store.ping().catch((err: unknown) => err);
    const elapsed = Date.now() - started;
    client.destroy();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => frozen.close(resolve));

    // Assess: two attempts of 300 ms, plus a short backoff
    expect(outcome).toBeInstanceOf(StoreUnavailableError);
    expect(elapsed).toBeLessThan(2_000);
  });

  it("bounds a request-path call to AWS inside a route function's 10 s: 2 attempts of 2.5 s against a table that never answers", async () => {
    // Prepare: AWS's configuration (no endpoint option), its address taken over by a frozen listener
    const sockets: Socket[] = [];
    const frozen = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => frozen.listen(0, '127.0.0.1', resolve));
    const { port } = frozen.address() as { port: number };
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const client = createDocumentClient({ region: 'us-east-1', bound: 'request-path' });
    const store = new DynamoOpsStore(client, 'frozen-ops');

    // Act
    const started = Date.now();
    const outcome = await store.ping().catch((err: unknown) => err);
    const elapsed = Date.now() - started;
    process.env = saved;
    client.destroy();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => frozen.close(resolve));

    // Assess: both attempts were waited for (2 × 2.5 s), and the whole stays under the function's 10 s
    expect(outcome).toBeInstanceOf(StoreUnavailableError);
    expect(elapsed).toBeGreaterThanOrEqual(5_000);
    expect(elapsed).toBeLessThan(9_000);
  }, 20_000);

  it('keeps data on disk across a close and a reopen of the same path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asof-dynalite-'));
    try {
      // Prepare: write through one instance, then close it
      const first = await startDynalite({ path: dir });
      let client = createDocumentClient(first.access);
      const names = tableNames('persisted');
      await ensureTables(client, names);
      const v = versionOf(refOf('1-1'), '2020-01-01T00:00:00-05:00', OPEN_END, bodyOf(50_000));
      await new DynamoVersionStore(client, names.versions).applyWrites([{ kind: 'put', version: v }]);
      await new DynamoVersionStore(client, names.versions).putHistory(historyOf(refOf('1-1')));
      await new DynamoAccountStore(client, names.accounts).createKey(keyRecord('key_kept'));
      client.destroy();
      await first.close();

      // Act: reopen the same path in the same process
      const second = await startDynalite({ path: dir });
      client = createDocumentClient(second.access);
      try {
        await ensureTables(client, names);
        const versions = new DynamoVersionStore(client, names.versions);

        // Assess
        expect(await versions.findInForce(refOf('1-1'), '2024-01-01')).toEqual(v);
        expect(await versions.carries('us', 'statutes')).toBe(true);
        expect(await new DynamoAccountStore(client, names.accounts).getById('key_kept')).toEqual(keyRecord('key_kept'));
      } finally {
        client.destroy();
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
