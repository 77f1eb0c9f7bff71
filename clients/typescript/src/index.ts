export { type AsofClient, type AsofClientOptions, createAsofClient, DEFAULT_BASE_URL } from './client.ts';
export { AsofError, type ErrorCode, type ErrorEnvelope, isAsofError, unwrap } from './errors.ts';
export type * from './generated/openapi.ts';
