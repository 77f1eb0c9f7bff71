/**
 * The MCP endpoint's own reading of a POST (mcp/message.ts) and the process's bound on tool calls (run-route.ts):
 * each malformed message is JSON-RPC's error with a message saying what is wrong, and a call past the bound is the
 * route's 503 envelope, not run.
 */
import { describe, expect, it } from 'vitest';
import type { Services } from '#app/services.ts';
import { readMessage } from '#http/mcp/message.ts';
import { inProcessRunner } from '#http/mcp/run-route.ts';
import { caselawCitations } from '#http/routes/caselaw.ts';
import { lawLookup } from '#http/routes/law.ts';
import { Semaphore } from '#shared/semaphore.ts';

const errorOf = (body: string) => {
  const read = readMessage(body);
  if (!('error' in read)) throw new Error('read as a message');
  return read.error;
};
const call = (params: unknown, id: unknown = 3) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });

describe('readMessage', () => {
  it('reads a request, a notification and a response as they are', () => {
    for (const message of [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lookup_section', arguments: { citation: '1-1' } } },
    ]) {
      expect(readMessage(JSON.stringify(message))).toEqual({ message });
    }
  });

  it('answers -32700 for text that is not JSON and -32600 for JSON past the limits or not one object, HTTP 400', () => {
    expect(errorOf('{"jsonrpc":')).toEqual({ status: 400, id: null, code: -32700, message: 'Parse error: the body is not valid JSON.' });
    expect(errorOf(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${'['.repeat(100)}${']'.repeat(100)}}}`)).toMatchObject({
      status: 400,
      code: -32600,
      message:
        'Invalid Request: the body holds arrays and objects nested more than 64 levels deep (in params); at most 64 levels are read.',
    });
    expect(errorOf('[]')).toMatchObject({ status: 400, code: -32600, message: expect.stringContaining('(got an array)') });
    expect(errorOf('"ping"')).toMatchObject({ code: -32600, message: expect.stringContaining('(got a string)') });
  });

  it('says why an object is not a JSON-RPC message, echoing its id where it has one', () => {
    const why = (m: unknown) => errorOf(JSON.stringify(m));
    expect(why({ jsonrpc: '1.0', id: 1, method: 'ping' })).toEqual({
      status: 400,
      id: 1,
      code: -32600,
      message: 'Invalid Request: jsonrpc must be "2.0" (got a string).',
    });
    expect(why({ jsonrpc: '2.0', id: 1 }).message).toBe(
      'Invalid Request: it has no method (a request or a notification) and no result or error (a response).',
    );
    expect(why({ jsonrpc: '2.0', id: 1, method: 'ping', jurisdiction: 'dc' }).message).toBe(
      'Invalid Request: it has members JSON-RPC does not define: jurisdiction.',
    );
    expect(why({ jsonrpc: '2.0', id: 1, method: 7 }).message).toBe('Invalid Request: method must be a string (got a number).');
    expect(why({ jsonrpc: '2.0', id: [1], method: 'ping' })).toMatchObject({
      id: null,
      message: 'Invalid Request: id must be a string or an integer (got an array).',
    });
    expect(why({ jsonrpc: '2.0', id: 1, method: 'ping', params: [] }).message).toBe(
      'Invalid Request: params must be an object (got an array).',
    );
  });

  it('answers a tools/call whose name or arguments are of the wrong type -32602, by its id, HTTP 200, with no validator dump', () => {
    for (const [args, kind] of [
      [[], 'an array'],
      ['x', 'a string'],
      [null, 'null'],
      [7, 'a number'],
    ] as const) {
      expect(errorOf(call({ name: 'lookup_section', arguments: args }))).toEqual({
        status: 200,
        id: 3,
        code: -32602,
        message: `Invalid params: params.arguments must be an object of the tool's parameters (got ${kind}).`,
      });
    }
    expect(errorOf(call({ name: 5 })).message).toBe('Invalid params: params.name must be the name of a tool, a string (got a number).');
    expect(errorOf(call({ name: 'x', task: 5 })).message).toBe('Invalid params: params.task is not what tools/call takes.');
  });
});

describe('the bound on tool calls in process', () => {
  it('runs at most `running` at once, lets `waiting` wait in order, and refuses one more at once', async () => {
    const gate = new Semaphore(2, 1);
    const order: string[] = [];
    const releases: Array<() => void> = [];
    const task = (name: string) => () =>
      new Promise<string>((done) => {
        order.push(name);
        releases.push(() => done(name));
      });
    const runs = ['a', 'b', 'c'].map((name) => gate.run(task(name), () => 'refused'));
    expect(await gate.run(task('d'), () => 'refused')).toBe('refused');
    expect(order).toEqual(['a', 'b']);
    expect({ running: gate.running, waiting: gate.waiting }).toEqual({ running: 2, waiting: 1 });
    releases[0]!();
    await runs[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a', 'b', 'c']);
    releases[1]!();
    releases[2]!();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
    expect({ running: gate.running, waiting: gate.waiting }).toEqual({ running: 0, waiting: 0 });
  });

  it('frees its place when a task fails', async () => {
    const gate = new Semaphore(1, 0);
    await expect(
      gate.run(
        () => Promise.reject(new Error('boom')),
        () => 'refused',
      ),
    ).rejects.toThrow('boom');
    expect(
      await gate.run(
        async () => 'ran',
        () => 'refused',
      ),
    ).toBe('ran');
  });

  it("answers a call past the bound with its route's 503 envelope and Retry-After, without running it", async () => {
    // Its one place held by a call that never ends, and no line: every call past it is refused.
    const gate = new Semaphore(1, 0);
    void gate.run(() => new Promise<never>(() => undefined));
    const run = inProcessRunner({} as Services, { edge: false, gate });
    const [cases, law] = await Promise.all([run(caselawCitations, { citations: ['1 U.S. 1'] }, 'Bearer k'), run(lawLookup, {}, undefined)]);

    expect(cases.status).toBe(503);
    expect(cases.headers).toMatchObject({ 'retry-after': '30', 'x-request-id': expect.any(String) });
    expect(JSON.parse(cases.text).error).toMatchObject({
      code: 'caselaw_unavailable',
      message: expect.stringContaining('Too many tool calls are running in this process'),
      requestId: cases.headers['x-request-id'],
    });
    expect(JSON.parse(law.text).error.code).toBe('statutes_unavailable');
  });
});
