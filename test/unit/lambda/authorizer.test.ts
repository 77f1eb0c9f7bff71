import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { generateKey } from '#accounts/keys.ts';
import { handler, UNAUTHORIZED } from '#lambda/authorizer.ts';

const METHOD_ARN = 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/v1/GET/law/lookup';
const STAGE_WIDE = 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/v1/*';

/** The event API Gateway sends a TOKEN authorizer: the whole Authorization header value. */
const tokenEvent = (authorization: string, methodArn = METHOD_ARN): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  methodArn,
  authorizationToken: authorization,
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the bearer authorizer', () => {
  it.each([
    ['no token at all', ''],
    ['the scheme alone', 'Bearer'],
    ['an empty token after the scheme', 'bearer   '],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
  ])('answers Unauthorized (401 missing_bearer) for %s', async (_, header) => {
    await expect(handler(tokenEvent(header))).rejects.toThrow(new Error(UNAUTHORIZED));
  });

  it('reads exactly "Unauthorized", the message API Gateway maps to its 401', () => {
    expect(UNAUTHORIZED).toBe('Unauthorized');
  });

  /** The key with its last checksum character changed (always changed: a fixed replacement would equal it 1 time in 62). */
  const breakChecksum = (key: string) => key.slice(0, -1) + (key.endsWith('0') ? '1' : '0');

  it.each([
    ['a made-up token', 'Bearer not-a-key'],
    ['a key with a broken checksum', `Bearer ${breakChecksum(generateKey(false))}`],
    ['a key of the wrong case', `Bearer ${generateKey(false).toUpperCase()}`],
  ])('denies %s (401 invalid_key) without a usage identifier', async (_, header) => {
    const result = await handler(tokenEvent(header));

    expect(result.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: STAGE_WIDE }]);
    expect(result.usageIdentifierKey).toBeUndefined();
    expect(result.principalId).toBe('malformed-key');
  });

  it("allows a well-formed key, naming its API Gateway key by the key's SHA-256, never the key itself", async () => {
    const key = generateKey(false);

    const result = await handler(tokenEvent(`Bearer ${key}`));

    expect(result.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: STAGE_WIDE }]);
    expect(result.usageIdentifierKey).toBe(sha256(key));
    expect(result.principalId).toBe(key.slice(0, 16));
    expect(JSON.stringify(result)).not.toContain(key);
  });

  it('matches the scheme case-insensitively and ignores the white space around the token, as the functions do', async () => {
    const key = generateKey(true);
    for (const header of [`bearer ${key}`, `BEARER ${key}`, `  bEaReR   ${key}  `]) {
      expect((await handler(tokenEvent(header))).usageIdentifierKey, header).toBe(sha256(key));
    }
  });

  it('answers with the same stage-wide policy whichever method asked, so that one cached answer serves them all', async () => {
    const header = `Bearer ${generateKey(false)}`;
    const viaLookup = await handler(tokenEvent(header, METHOD_ARN));
    const viaCitedBy = await handler(
      tokenEvent(header, 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/v1/GET/statutes/cases/111014/cited-by'),
    );
    expect(viaCitedBy).toEqual(viaLookup);
  });

  it('fails loudly on a method ARN that is not one (a configuration error, never an Allow)', async () => {
    await expect(handler(tokenEvent(`Bearer ${generateKey(false)}`, 'nonsense'))).rejects.toThrow(/not an execute-api method ARN/);
  });

  it('does no I/O: its bundle holds no AWS SDK, no store client and no network module', async () => {
    const entry = fileURLToPath(new URL('../../../functions/lambda/authorizer.ts', import.meta.url));

    const out = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      logLevel: 'silent',
    });

    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs.filter((p) => p.includes('node_modules'))).toEqual([]);
    const external = new Set(
      Object.values(out.metafile.inputs).flatMap((i) => i.imports.filter((imp) => imp.external).map((imp) => imp.path)),
    );
    expect([...external].sort()).toEqual(['node:crypto', 'node:zlib']);
  });
});
