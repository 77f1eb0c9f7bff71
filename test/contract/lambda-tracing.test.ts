/**
 * A trace follows a request into the stores: a deployed route function, traced as in Lambda (the X-Ray SDK in Lambda
 * mode, segments sent over UDP to a daemon — here a local socket standing in for it), emits a subsegment for each
 * DynamoDB call it makes, under the trace of the invocation; pg queries are captured the same way (against the
 * PostgreSQL server when DATABASE_URL is set). The environment must be in place before the X-Ray SDK and the
 * functions' modules load, so they are imported inside the tests.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { ENV } from '#lambda/env.ts';
import { type DynaliteStores, LOCAL_TABLES, openDynaliteStores } from '../support/dynalite-stores.ts';
import { deployedLambdaEnv } from './lambda-env.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const TRACE_ROOT = '1-67891233-abcdef012345678912345678';
const saved = { ...process.env };

interface TraceDocument {
  name: string;
  trace_id: string;
  id: string;
  parent_id?: string;
  namespace?: string;
  aws?: { operation?: string; table_name?: string };
  sql?: { url?: string; user?: string };
  subsegments?: TraceDocument[];
}

let daemon: Socket;
const received: TraceDocument[] = [];
let stores: DynaliteStores;
let key: string;

/** Every document the daemon got, with the subsegments nested in them. */
const allDocuments = (): TraceDocument[] => {
  const out: TraceDocument[] = [];
  const walk = (d: TraceDocument) => {
    out.push(d);
    for (const s of d.subsegments ?? []) walk({ ...s, trace_id: s.trace_id ?? d.trace_id });
  };
  for (const d of received) walk(d);
  return out;
};

const until = async (found: () => boolean) => {
  for (let i = 0; i < 100 && !found(); i++) await new Promise((r) => setTimeout(r, 20));
};

const context = (id: string) =>
  ({ awsRequestId: id, functionName: 'asof-test-law-lookup', getRemainingTimeInMillis: () => 10_000 }) as unknown as Context;

beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (msg) => {
    const [, body] = msg.toString('utf8').split('\n');
    if (body) received.push(JSON.parse(body) as TraceDocument);
  });
  await new Promise<void>((done) => daemon.bind(0, '127.0.0.1', () => done()));
  stores = await openDynaliteStores();
  key = (await issueKey(stores.accounts, { name: 'tracing' }, new Date())).key;
  Object.assign(
    process.env,
    deployedLambdaEnv(stores.dynamo, LOCAL_TABLES, {
      [ENV.siteUrl]: 'https://asof.test',
      [ENV.baseUrl]: 'https://asof.test/v1',
      // Lambda as the X-Ray SDK and the Powertools tracer recognise it, tracing on, the daemon on the local socket.
      LAMBDA_TASK_ROOT: '/var/task',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      AWS_LAMBDA_FUNCTION_NAME: 'asof-test-law-lookup',
      _HANDLER: 'index.handler',
      POWERTOOLS_TRACE_ENABLED: 'true',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      _X_AMZN_TRACE_ID: `Root=${TRACE_ROOT};Parent=53995c3f42cd8ad8;Sampled=1`,
    }),
  );
});
afterAll(async () => {
  process.env = saved;
  daemon?.close();
  await stores?.close();
});

describe('tracing of a deployed function', () => {
  it('sends a subsegment for each DynamoDB call of a lookup, in the trace of the invocation', async () => {
    // Prepare
    const { handler } = await import('#lambda/routes/law-lookup.ts');
    const event = {
      httpMethod: 'GET',
      path: '/v1/law/lookup',
      resource: '/law/lookup',
      headers: { authorization: `Bearer ${key}` },
      queryStringParameters: { jurisdiction: 'us', citation: '1-1' },
      requestContext: { requestId: 'trace-1' },
    } as unknown as APIGatewayProxyEvent;

    // Act
    const answer = await handler(event, context('trace-1'));
    await until(() => allDocuments().some((d) => d.name === '## index.handler'));

    // Assess: the key lookup and the meter's conditional write are DynamoDB subsegments of this trace
    expect(answer.statusCode).toBe(404); // nothing is ingested: not carried, after authentication and metering
    const handlerSegment = allDocuments().find((d) => d.name === '## index.handler');
    const dynamo = allDocuments().filter((d) => d.name === 'DynamoDB');
    expect(dynamo.map((d) => d.aws?.operation)).toEqual(expect.arrayContaining(['GetItem', 'UpdateItem']));
    expect(dynamo.map((d) => d.aws?.table_name)).toEqual(expect.arrayContaining([LOCAL_TABLES.accounts, LOCAL_TABLES.meters]));
    for (const d of dynamo) expect(d).toMatchObject({ trace_id: TRACE_ROOT, parent_id: handlerSegment?.id });
  });

  it.skipIf(!DATABASE_URL)('sends a subsegment with the SQL of each pg query (the case-law replica on Aurora)', async () => {
    // Prepare: pg as the case-law adapter uses it, under a subsegment as a handler's code runs
    const { tracedPg } = await import('#lambda/adapters/traced-pg.ts');
    const { tracer } = await import('#lambda/powertools.ts');
    const pool = new tracedPg.Pool({ connectionString: DATABASE_URL, max: 1 });

    // Act
    const facade = tracer.getSegment()!;
    const handlerSegment = facade.addNewSubsegment('## handler');
    tracer.setSegment(handlerSegment);
    await pool.query('SELECT $1::int AS one', [1]);
    handlerSegment.close();
    tracer.setSegment(facade);
    await pool.end();
    const database = new URL(DATABASE_URL!).pathname.slice(1);
    await until(() => allDocuments().some((d) => d.name === '## handler'));

    // Assess: the query is a subsegment `<database>@<host>` of the handler's, with the connection (never the password)
    const query = allDocuments().find((d) => d.namespace === 'remote' && d.sql?.url?.endsWith(`/${database}`));
    expect(query).toMatchObject({ name: `${database}@127.0.0.1`, trace_id: TRACE_ROOT, parent_id: handlerSegment.id });
  });
});
