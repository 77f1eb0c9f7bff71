/** Sizes past which an input is refused as malformed, before any store sees it (docs/DECISIONS.md, Errors and envelope). */

/** Larger request bodies are refused with 413 too_large: by the local server before reading them, by a function after. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The longest a short parameter (a jurisdiction or a list of them, a citation, a court, a page's path segment) may
 * be: far above any real value, low enough that an answer quoting it stays short. Longer is refused, never looked up.
 */
export const MAX_SHORT_PARAM_CHARS = 200;

/** The request line and headers together (Node's default): longer is 431 headers_too_large. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** A request not fully received in this time is 408 request_timeout. */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * The shape a JSON body may have, checked by json-reader.ts before JSON.parse builds it: how deep arrays and objects
 * nest, how many members one object and one array hold, and how many values the whole body holds. Each is far above
 * any real request (a 250-citation lookup nests three deep, an MCP tools/call six) and low enough that no walk of a
 * body (validation, the NUL check) can overflow the stack or take long. Past one, the body is 400 bad_json (over MCP,
 * JSON-RPC's Invalid Request), naming the limit.
 */
export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_OBJECT_KEYS = 1_000;
export const MAX_JSON_ARRAY_ITEMS = 10_000;
export const MAX_JSON_VALUES = 100_000;
