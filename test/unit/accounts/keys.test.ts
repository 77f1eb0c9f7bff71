import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bearerToken } from '#accounts/authenticate.ts';
import { displayPrefix, generateKey, hashKey, isTestKey, isWellFormedKey } from '#accounts/keys.ts';

describe('API keys', () => {
  it('have the live/test prefix, ≥ 32 random bytes and a checksum, and verify', () => {
    const live = generateKey(false);
    const test = generateKey(true);
    expect(live).toMatch(/^asof_live_[0-9A-Za-z]{49}$/);
    expect(test).toMatch(/^asof_test_[0-9A-Za-z]{49}$/);
    expect(isWellFormedKey(live) && isWellFormedKey(test)).toBe(true);
    expect(isTestKey(test) && !isTestKey(live)).toBe(true);
    expect(displayPrefix(live)).toBe(live.slice(0, 16));
    expect(hashKey(live)).toMatch(/^[0-9a-f]{64}$/);
    expect(generateKey(false)).not.toBe(live);
  });

  it('reject any single-character change (the checksum catches typos offline)', () => {
    const key = generateKey(false);
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: key.length - 1 }),
        fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'),
        (i, ch) => {
          fc.pre(key[i] !== ch);
          expect(isWellFormedKey(key.slice(0, i) + ch + key.slice(i + 1))).toBe(false);
        },
      ),
    );
  });

  it.each(['', 'asof_live_', `asof_prod_${'a'.repeat(49)}`, 'Bearer x', generateKey(false).toLowerCase()])('rejects %j', (k) =>
    expect(isWellFormedKey(k)).toBe(false),
  );
});

describe('bearerToken', () => {
  it('matches the scheme case-insensitively and keeps the key as sent', () => {
    expect(bearerToken('Bearer AbC')).toBe('AbC');
    expect(bearerToken('bearer AbC')).toBe('AbC');
    expect(bearerToken('BEARER   AbC  ')).toBe('AbC');
  });
  it('tells an absent header from an empty token', () => {
    expect(bearerToken(undefined)).toBeNull();
    expect(bearerToken('Bearer')).toBe('');
    expect(bearerToken('Bearer   ')).toBe('');
    expect(bearerToken('Basic dXNlcjpwYXNz')).toBe('');
  });
});
