/**
 * The bounded JSON reader: it agrees with JSON.parse on every text within its limits, counts depth, members, items and
 * values exactly (against a recursive measure of the parsed value), refuses past each limit naming it and the
 * top-level member it was passed in, and scans a hostile megabyte without recursing or taking long.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJsonShape, JSON_LIMITS, JsonLimitError, type JsonLimits, JsonSyntaxError, readJson } from '#http/json-reader.ts';

/** The shape of a parsed value, measured the obvious (recursive) way: what the scan must find without recursing. */
function measure(value: unknown, depth = 0): { depth: number; keys: number; items: number; values: number } {
  if (value === null || typeof value !== 'object') return { depth, keys: 0, items: 0, values: 1 };
  const inner = Object.values(value).map((v) => measure(v, depth + 1));
  const own = Array.isArray(value) ? { keys: 0, items: value.length } : { keys: Object.keys(value).length, items: 0 };
  return {
    depth: Math.max(depth + 1, ...inner.map((m) => m.depth)),
    keys: Math.max(own.keys, ...inner.map((m) => m.keys)),
    items: Math.max(own.items, ...inner.map((m) => m.items)),
    values: 1 + inner.reduce((sum, m) => sum + m.values, 0),
  };
}

const within = (value: unknown, limits: JsonLimits) => {
  const m = measure(value);
  return m.depth <= limits.depth && m.keys <= limits.objectKeys && m.items <= limits.arrayItems && m.values <= limits.values;
};

const outcome = (run: () => unknown): unknown => {
  try {
    return { value: run() };
  } catch (err) {
    return { error: (err as Error).name };
  }
};

const SMALL: JsonLimits = { depth: 3, objectKeys: 3, arrayItems: 3, values: 12 };

describe('readJson', () => {
  it('answers what JSON.parse answers for any JSON text within the limits, compact or indented', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(readJson(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a valid text exactly when its depth, members, items or values go past a limit', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const text = JSON.stringify(value);
        if (within(JSON.parse(text), SMALL)) expect(readJson(text, SMALL)).toEqual(JSON.parse(text));
        else expect(() => readJson(text, SMALL)).toThrow(JsonLimitError);
      }),
      { numRuns: 2_000 },
    );
  });

  it('throws for a text exactly when JSON.parse does (random strings of JSON’s characters)', () => {
    const chars = fc.constantFrom(...'{}[],:"\\ 1-.e0tnrufals\u00e9\n'.split(''));
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 30 }), (text) => {
        const parsed = outcome(() => JSON.parse(text));
        const read = outcome(() => readJson(text));
        if ('value' in (parsed as object)) expect(read).toEqual(parsed);
        else expect(read).toEqual({ error: 'JsonSyntaxError' });
      }),
      { numRuns: 5_000 },
    );
  });

  it('reads a string holding brackets, quotes and backslashes as one value', () => {
    const text = JSON.stringify({ a: '[[[{{{', b: 'say \\"[\\', c: ['\\', '"]', '\\\\"'] });
    expect(readJson(text, { depth: 2, objectKeys: 3, arrayItems: 3, values: 7 })).toEqual(JSON.parse(text));
  });
});

describe('the limits', () => {
  const nested = (depth: number) => `{"citation":${'['.repeat(depth - 1)}"x"${']'.repeat(depth - 1)}}`;

  it(`reads ${JSON_LIMITS.depth} levels and refuses one more, naming the member`, () => {
    expect(() => readJson(nested(JSON_LIMITS.depth))).not.toThrow();
    const err = (() => {
      try {
        readJson(nested(JSON_LIMITS.depth + 1));
      } catch (e) {
        return e as JsonLimitError;
      }
    })();
    expect(err).toBeInstanceOf(JsonLimitError);
    expect(err).toMatchObject({ limit: 'depth', max: 64, field: 'citation' });
    expect(err!.message).toBe('arrays and objects nested more than 64 levels deep (in citation); at most 64 levels are read');
  });

  it('counts the members of each object and the items of each array, and the values of the whole', () => {
    const keys = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
    expect(() => checkJsonShape(keys(1_000))).not.toThrow();
    expect(() => checkJsonShape(keys(1_001))).toThrow(expect.objectContaining({ limit: 'objectKeys', field: undefined, depth: 1 }));
    const items = (n: number) => JSON.stringify({ citations: Array.from({ length: n }, () => '1 U.S. 1') });
    expect(() => checkJsonShape(items(10_000))).not.toThrow();
    expect(() => checkJsonShape(items(10_001))).toThrow(expect.objectContaining({ limit: 'arrayItems', field: 'citations', depth: 2 }));
    const values = JSON.stringify({ a: Array.from({ length: 11 }, () => Array.from({ length: 9_999 }, () => 0)) });
    expect(() => checkJsonShape(values)).toThrow(expect.objectContaining({ limit: 'values', field: undefined }));
  });

  it('names a member whose key has escapes as it reads, and cuts a long one', () => {
    const err = (text: string) => {
      try {
        checkJsonShape(text, SMALL);
      } catch (e) {
        return (e as JsonLimitError).field;
      }
    };
    expect(err('{"a\\"b":[[[[1]]]]}')).toBe('a"b');
    expect(err(`{"${'k'.repeat(500)}":[[[[1]]]]}`)).toBe('k'.repeat(100));
  });

  it('scans a hostile megabyte (deep, wide, a long string) in well under a millisecond per kilobyte', () => {
    const mib = 1024 * 1024;
    const hostile = [
      '['.repeat(mib),
      `{"citation":${'['.repeat(mib / 2)}`,
      `{"citations":[${'1,'.repeat(mib / 2 - 20)}1]}`,
      `{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":0`).join(',')}}`,
    ];
    const fine = JSON.stringify({ text: 'x\\"'.repeat(mib / 4) });
    for (const text of hostile) {
      const start = performance.now();
      expect(() => readJson(text)).toThrow(JsonLimitError);
      expect(performance.now() - start).toBeLessThan(50);
    }
    const start = performance.now();
    expect(readJson(fine)).toEqual(JSON.parse(fine));
    expect(performance.now() - start).toBeLessThan(100);
  });

  it('leaves a text that is not JSON to JSON.parse: a JsonSyntaxError', () => {
    for (const text of ['{"a":', '{"a" 1}', '"unterminated', ']]', '{"a":1}}', 'nul', '']) {
      expect(() => readJson(text), text).toThrow(JsonSyntaxError);
    }
  });
});
