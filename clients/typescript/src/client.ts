import createClient, { type Client, type ClientOptions, mergeHeaders } from 'openapi-fetch';
import type { paths } from './generated/openapi.ts';

/** The local server's API (`asof serve`); a deployed stage's is its API Gateway URL with `/v1`. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787/v1';

export interface AsofClientOptions extends ClientOptions {
  /** An API key (`asof_live_…` or `asof_test_…`), sent as a bearer token; the public endpoints need none. */
  key?: string;
  /** Default: {@link DEFAULT_BASE_URL}. */
  baseUrl?: string;
}

/** openapi-fetch's client over the generated `paths`: `GET`/`POST` take a path of the document and answer `{ data, error, response }`. */
export type AsofClient = Client<paths>;

/** A client for every path of the OpenAPI document, carrying the key on each call. Other options go to openapi-fetch as they are. */
export function createAsofClient(options: AsofClientOptions = {}): AsofClient {
  const { key, baseUrl = DEFAULT_BASE_URL, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    baseUrl,
    headers: mergeHeaders(key === undefined ? undefined : { authorization: `Bearer ${key}` }, headers),
  });
}
