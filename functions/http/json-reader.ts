/**
 * JSON text read within limits (input-limits.ts): one pass over the text, with no recursion and no stack deeper than
 * the depth limit, measures how deep arrays and objects nest, how many members each holds and how many values there
 * are in all; only a text within every limit is handed to JSON.parse. So a body too deep or too wide is refused
 * before anything is built from it or walked, at the cost of one scan of its characters.
 *
 * The scan judges shape, not validity: a text it passes that is not JSON is JSON.parse's to refuse. For valid JSON it
 * counts exactly, so a valid text within the limits always parses (test/unit/http/json-reader.test.ts).
 */
import { thousands } from '#shared/thousands.ts';
import { MAX_JSON_ARRAY_ITEMS, MAX_JSON_DEPTH, MAX_JSON_OBJECT_KEYS, MAX_JSON_VALUES } from './input-limits.ts';

export interface JsonLimits {
  /** Arrays and objects nested in one another (the top-level object is level 1). */
  depth: number;
  /** Members of one object. */
  objectKeys: number;
  /** Items of one array. */
  arrayItems: number;
  /** Values in the whole text, arrays and objects included. */
  values: number;
}

export type JsonLimit = keyof JsonLimits;

export const JSON_LIMITS: Readonly<JsonLimits> = {
  depth: MAX_JSON_DEPTH,
  objectKeys: MAX_JSON_OBJECT_KEYS,
  arrayItems: MAX_JSON_ARRAY_ITEMS,
  values: MAX_JSON_VALUES,
};

const GIVEN: Record<JsonLimit, (max: string) => string> = {
  depth: (max) => `arrays and objects nested more than ${max} levels deep`,
  objectKeys: (max) => `an object of more than ${max} members`,
  arrayItems: (max) => `an array of more than ${max} items`,
  values: (max) => `more than ${max} values`,
};
const ALLOWED: Record<JsonLimit, (max: string) => string> = {
  depth: (max) => `at most ${max} levels are read`,
  objectKeys: (max) => `at most ${max} members of an object are read`,
  arrayItems: (max) => `at most ${max} items of an array are read`,
  values: (max) => `at most ${max} values in all are read`,
};

/** A text past one of the limits: which, and the top-level member whose value went past it (if the text is an object). */
export class JsonLimitError extends Error {
  override readonly name = 'JsonLimitError';
  constructor(
    readonly limit: JsonLimit,
    readonly max: number,
    /** The top-level member in whose value the limit was passed; undefined for the top-level object itself, or for `values`. */
    readonly field: string | undefined,
    /** The level of the array or object that went past it (1: the top-level value). */
    readonly depth: number,
  ) {
    const max_ = thousands(max);
    super(`${GIVEN[limit](max_)}${field === undefined ? '' : ` (in ${field})`}; ${ALLOWED[limit](max_)}`);
  }
}

/** A text that is not JSON (JSON.parse's verdict). */
export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

const OBJECT = 1;
const ARRAY = 2;

/** True for the characters that end a number or a literal (`true`, `null`): a delimiter or JSON's whitespace. */
const endsScalar = (c: number) =>
  c === 0x2c ||
  c === 0x5d ||
  c === 0x7d ||
  c === 0x3a ||
  c === 0x22 ||
  c === 0x5b ||
  c === 0x7b ||
  c === 0x20 ||
  c === 0x0a ||
  c === 0x0d ||
  c === 0x09;

/** The key of a top-level member, as the text spells it (its escapes read where they are valid), cut short. */
function keyAt(text: string, start: number, end: number): string {
  const raw = text.slice(start, Math.min(end + 1, start + 102));
  try {
    return JSON.parse(end - start < 101 ? raw : `${raw.slice(0, -1)}"`) as string;
  } catch {
    return raw.slice(1, -1);
  }
}

/** Throws JsonLimitError at the first limit the text goes past, scanning it once; returns for a text within them. */
export function checkJsonShape(text: string, limits: Readonly<JsonLimits> = JSON_LIMITS): void {
  const kinds = new Uint8Array(limits.depth + 1);
  const counts = new Uint32Array(limits.depth + 1);
  let depth = 0;
  let values = 0;
  let expectKey = false;
  let keyStart = -1;
  let keyEnd = -1;
  const fail = (limit: JsonLimit): never => {
    const inField = limit !== 'values' && depth >= 2 && kinds[1] === OBJECT && keyStart >= 0;
    throw new JsonLimitError(limit, limits[limit], inField ? keyAt(text, keyStart, keyEnd) : undefined, depth);
  };
  const value = () => {
    if (++values > limits.values) fail('values');
    if (depth > 0 && kinds[depth] === ARRAY && ++counts[depth]! > limits.arrayItems) fail('arrayItems');
  };
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to the next quote not escaped (preceded by an even number of backslashes).
      let j = i + 1;
      for (;;) {
        j = text.indexOf('"', j);
        if (j < 0) return; // unterminated: not JSON, JSON.parse says so
        let k = j - 1;
        while (text.charCodeAt(k) === 0x5c) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j++;
      }
      if (expectKey) {
        expectKey = false;
        if (++counts[depth]! > limits.objectKeys) fail('objectKeys');
        if (depth === 1) {
          keyStart = i;
          keyEnd = j;
        }
      } else {
        value();
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      value();
      if (++depth > limits.depth) fail('depth');
      kinds[depth] = c === 0x7b ? OBJECT : ARRAY;
      counts[depth] = 0;
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth > 0) depth--;
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = depth > 0 && kinds[depth] === OBJECT;
    } else if (c !== 0x3a && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      // A number or a literal: one value, to the next delimiter.
      value();
      while (i + 1 < n && !endsScalar(text.charCodeAt(i + 1))) i++;
    }
  }
}

/** JSON.parse of a text within `limits`; JsonLimitError past one, JsonSyntaxError for a text that is not JSON. */
export function readJson(text: string, limits: Readonly<JsonLimits> = JSON_LIMITS): unknown {
  checkJsonShape(text, limits);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new JsonSyntaxError(err instanceof Error ? err.message : String(err));
  }
}
