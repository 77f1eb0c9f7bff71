/**
 * The search domain as the functions need it, brought about by its master user (fine-grained access control): the
 * index with the adapter's mapping, and two security roles limited to that index, each mapped to the IAM roles of the
 * functions bound to it (a signed request's role ARN is its backend role). Every request is a PUT of the whole wanted
 * state (the security plugin's REST API replaces a role or a mapping entirely), so running it again changes nothing,
 * and a mapping lists exactly the roles bound now: a function that is no longer bound loses its access.
 */
import type { Client } from '@opensearch-project/opensearch';
import type { OpenSearchSearchIndex } from './search-index.ts';

export const SEARCH_READ_ROLE = 'asof_read';
export const SEARCH_WRITE_ROLE = 'asof_write';

export interface SearchAccess {
  index: string;
  /** IAM role ARNs of the functions that read the index, and of those that read and write it. */
  readRoles: readonly string[];
  writeRoles: readonly string[];
}

export interface DomainRequest {
  method: 'PUT';
  path: string;
  body: Record<string, unknown>;
}

export interface SearchSetupReport {
  index: string;
  /** The paths written, in order. */
  applied: string[];
}

/** Index names OpenSearch accepts (lowercase, no path or wildcard characters), so the name is safe in a path and a pattern. */
const INDEX_NAME = /^[a-z0-9][a-z0-9._-]{0,254}$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

/**
 * What each role may do, in the security plugin's action groups and permissions: readers search, count and check the
 * cluster's health (the adapter's ping); writers also index, update and delete documents through _bulk (a cluster-level
 * permission) and refresh the index. Neither may create, delete or re-map an index: that is the master's.
 */
const ROLE_PERMISSIONS = {
  [SEARCH_READ_ROLE]: { cluster: ['cluster:monitor/health'], index: ['read'] },
  [SEARCH_WRITE_ROLE]: {
    cluster: ['cluster:monitor/health', 'indices:data/write/bulk'],
    index: ['read', 'write', 'delete', 'indices:admin/refresh*'],
  },
} as const;

/**
 * Settings of the index the setup keeps: replicas follow the domain (none on a single node, where a replica could not
 * be placed and the cluster would stay yellow; one as soon as there are two nodes), and the thresholds past which a
 * search or an indexing operation is written to the slow logs, which the domain publishes to CloudWatch Logs
 * (publishing alone logs nothing: an index logs only past its thresholds).
 */
export const INDEX_SETTINGS = {
  'index.auto_expand_replicas': '0-1',
  'index.search.slowlog.threshold.query.warn': '2s',
  'index.search.slowlog.threshold.query.info': '500ms',
  'index.search.slowlog.threshold.fetch.warn': '1s',
  'index.indexing.slowlog.threshold.index.warn': '2s',
  'index.indexing.slowlog.threshold.index.info': '500ms',
} as const;

const roleArns = (arns: readonly string[], what: string): string[] => {
  const bad = arns.filter((arn) => !ROLE_ARN.test(arn));
  if (bad.length) throw new Error(`${what}: not IAM role ARNs: ${bad.join(', ')}`);
  return [...new Set(arns)].sort();
};

/** The requests that bring the domain's security and the index's settings to the wanted state, in order. */
export function domainSetupRequests(access: SearchAccess): DomainRequest[] {
  if (!INDEX_NAME.test(access.index)) throw new Error(`Invalid index name '${access.index}'`);
  const mapped = {
    [SEARCH_READ_ROLE]: roleArns(access.readRoles, 'read roles'),
    [SEARCH_WRITE_ROLE]: roleArns(access.writeRoles, 'write roles'),
  };
  const security = Object.entries(ROLE_PERMISSIONS).flatMap(([role, permissions]): DomainRequest[] => [
    {
      method: 'PUT',
      path: `/_plugins/_security/api/roles/${role}`,
      body: {
        cluster_permissions: [...permissions.cluster],
        index_permissions: [{ index_patterns: [access.index], allowed_actions: [...permissions.index] }],
      },
    },
    {
      method: 'PUT',
      path: `/_plugins/_security/api/rolesmapping/${role}`,
      body: { backend_roles: mapped[role as keyof typeof mapped], hosts: [], users: [] },
    },
  ]);
  return [...security, { method: 'PUT', path: `/${access.index}/_settings`, body: { ...INDEX_SETTINGS } }];
}

/** Creates the index if it is missing, then applies domainSetupRequests; a refused request fails with its path and answer. */
export async function setUpSearchDomain(client: Client, index: OpenSearchSearchIndex, access: SearchAccess): Promise<SearchSetupReport> {
  const requests = domainSetupRequests(access);
  await index.ensureIndex();
  const applied: string[] = [];
  for (const request of requests) {
    try {
      await client.transport.request({ method: request.method, path: request.path, body: request.body });
    } catch (err) {
      const e = err as { statusCode?: number; body?: unknown; message?: string };
      const answer = e.body === undefined ? e.message : JSON.stringify(e.body);
      throw new Error(`OpenSearch ${request.method} ${request.path} failed (${e.statusCode ?? 'no answer'}): ${answer}`, { cause: err });
    }
    applied.push(request.path);
  }
  return { index: access.index, applied };
}
