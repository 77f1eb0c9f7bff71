import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** `asof_live_` / `asof_test_`, then ≥ 32 random bytes in base62, then a 6-character CRC32 checksum in base62. */
const LIVE_PREFIX = 'asof_live_';
const TEST_PREFIX = 'asof_test_';
const DISPLAY_CHARS = 16;
const CHECKSUM_CHARS = 6;
const BODY_CHARS = 43; // 32 random bytes need 43 base62 digits
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_RE = /^asof_(live|test)_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/;

function base62(value: bigint, width: number): string {
  let out = '';
  for (let v = value; v > 0n; v /= 62n) out = ALPHABET[Number(v % 62n)] + out;
  return out.padStart(width, '0');
}

/** A CRC32 (below 2^32, so exact in a number: no BigInt for the one check every keyed request makes) in base62. */
function checksumOf(text: string): string {
  let out = '';
  for (let v = crc32(text); v > 0; v = Math.floor(v / 62)) out = ALPHABET[v % 62] + out;
  return out.padStart(CHECKSUM_CHARS, '0');
}

export function generateKey(test: boolean): string {
  const body = base62(BigInt(`0x${randomBytes(32).toString('hex')}`), BODY_CHARS);
  const head = `${test ? TEST_PREFIX : LIVE_PREFIX}${body}`;
  return `${head}${checksumOf(head)}`;
}

/** Well-formed and checksum-valid: a typo or a made-up key is rejected without touching the store. */
export function isWellFormedKey(key: string): boolean {
  const m = KEY_RE.exec(key);
  return !!m && checksumOf(key.slice(0, key.length - CHECKSUM_CHARS)) === m[3];
}

export const isTestKey = (key: string): boolean => key.startsWith(TEST_PREFIX);
export const hashKey = (key: string): string => hash('sha256', key, 'hex');
export const displayPrefix = (key: string): string => key.slice(0, DISPLAY_CHARS);
