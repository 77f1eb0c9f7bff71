import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Services } from '#app/services.ts';

/** What a page reads: the law's versions and the clock (the local server passes all its services, a page function these). */
export type PageServices = Pick<Services, 'versions' | 'now'>;

/** A human-readable page of the public site (permalinks), outside the versioned API. */
export interface Page {
  id: string;
  /** Site path; `{name}` marks a parameter. */
  path: string;
  render(req: { params: Record<string, string>; query: URLSearchParams; services: PageServices }): Promise<APIGatewayProxyResult>;
}
