import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Services } from '#app/services.ts';

/**
 * What a page reads: the law's versions and the clock always; coverage, the search index and the site's addresses
 * when its deployment gives them (the local server passes all its services, a page function what its page declares).
 */
export type PageServices = Pick<Services, 'versions' | 'now'> & Partial<Pick<Services, 'coverage' | 'search' | 'site' | 'siteReads'>>;

/** The stores a page's function is given in AWS (lib/public-site.ts); a page that declares none reads none. */
export type PageStore = 'versions' | 'ops' | 'search';

/** Files a page's function needs beside its code: `docs`, the API reference's renderer and the README (a layer). */
export type PageAsset = 'docs';

export interface PageRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  services: PageServices;
  /** The caller's network address, when known: what a page limits per caller (page-budget.ts). */
  client?: string;
}

/** A human-readable page of the public site (permalinks, the front door, the docs), outside the versioned API. */
export interface Page {
  id: string;
  /** Site path; `{name}` marks a parameter. */
  path: string;
  /** The stores it reads. Default: the versions. */
  stores?: readonly PageStore[];
  assets?: readonly PageAsset[];
  render(req: PageRequest): Promise<APIGatewayProxyResult>;
}

export const storesOf = (page: Pick<Page, 'stores'>): readonly PageStore[] => page.stores ?? ['versions'];
