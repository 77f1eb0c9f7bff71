import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Services } from '#runtime/services.ts';

/** A human-readable page of the public site (permalinks), outside the versioned API. */
export interface Page {
  id: string;
  /** Site path; `{name}` marks a parameter. */
  path: string;
  render(req: { params: Record<string, string>; query: URLSearchParams; services: Services }): Promise<APIGatewayProxyResult>;
}
