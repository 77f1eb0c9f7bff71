import { inject } from 'vitest';

export const fixture = () => inject('asof');

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

let next = 0;
/** The key a call carries unless it names one: the next of the fixture's pool. */
const pooledKey = () => {
  const { pool } = fixture().keys;
  return pool[next++ % pool.length]!;
};

/** A real HTTP call to the local server (global fetch over a socket). */
export async function call(
  method: 'GET' | 'POST',
  path: string,
  opts: { query?: Record<string, string>; body?: unknown; rawBody?: string; key?: string | null; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const { url } = fixture();
  const target = new URL(`${url}${path}`);
  for (const [k, v] of Object.entries(opts.query ?? {})) target.searchParams.set(k, v);
  const key = opts.key === undefined ? pooledKey() : opts.key;
  const headers: Record<string, string> = { ...(key !== null && { authorization: `Bearer ${key}` }), ...opts.headers };
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(target, { method, headers, ...(body !== undefined && { body }) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export const get = (path: string, query: Record<string, string> = {}, key?: string | null) =>
  call('GET', path, { query, ...(key !== undefined && { key }) });
export const post = (path: string, body: unknown, key?: string | null) => call('POST', path, { body, ...(key !== undefined && { key }) });
