/**
 * The API's Lambda authorizer (TOKEN, identity source the Authorization header), on every bearer route. It does no
 * I/O: it reads the header as the functions do and names the key's API Gateway key, whose value is the key's SHA-256
 * (what the accounts table stores). The gateway then refuses a hash that is no enabled key of a usage plan
 * (INVALID_API_KEY) and throttles the rest by their tier; the function behind still authenticates every call against
 * the accounts table, which stays the authority.
 */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { bearerToken } from '#accounts/authenticate.ts';
import { displayPrefix, hashKey, isWellFormedKey } from '#accounts/keys.ts';

/** The error message API Gateway turns into its 401 UNAUTHORIZED response (here: the spec's `missing_bearer`). */
export const UNAUTHORIZED = 'Unauthorized';

/**
 * A policy on every method of the stage (`…/{stage}/*`): the result is cached by the Authorization header and reused
 * for any method that token calls next, so it must not name the one method that asked.
 */
export function stageWidePolicy(methodArn: string, effect: 'Allow' | 'Deny'): APIGatewayAuthorizerResult['policyDocument'] {
  const [apiArn, stage] = methodArn.split('/');
  if (!apiArn || !stage) throw new Error(`not an execute-api method ARN: ${methodArn}`);
  return { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: `${apiArn}/${stage}/*` }] };
}

/**
 * No token (or an empty one, or another scheme): Unauthorized, which the gateway answers 401 `missing_bearer`. A
 * token that cannot be a key (wrong form or checksum): Deny, answered 401 `invalid_key` (ACCESS_DENIED). A
 * well-formed key: Allow, with its hash as the usage identifier.
 */
export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const token = bearerToken(event.authorizationToken);
  if (!token) throw new Error(UNAUTHORIZED);
  if (!isWellFormedKey(token)) return { principalId: 'malformed-key', policyDocument: stageWidePolicy(event.methodArn, 'Deny') };
  return {
    // The key's display prefix (what `asof keys list` shows), never the key: principalId reaches logs.
    principalId: displayPrefix(token),
    policyDocument: stageWidePolicy(event.methodArn, 'Allow'),
    usageIdentifierKey: hashKey(token),
  };
}
