/** The requests the setup job sends to the search domain as its master user (the security plugin's REST API). */
import { describe, expect, it } from 'vitest';
import {
  domainSetupRequests,
  INDEX_SETTINGS,
  SEARCH_READ_ROLE,
  SEARCH_WRITE_ROLE,
  type SearchAccess,
} from '#stores/opensearch/domain-setup.ts';

const roleArn = (name: string) => `arn:aws:iam::123456789012:role/${name}`;
const access = (over: Partial<SearchAccess> = {}): SearchAccess => ({
  index: 'asof-versions',
  readRoles: [roleArn('asof-dev-law-search')],
  writeRoles: [roleArn('asof-dev-ingest')],
  ...over,
});
const requestAt = (requests: ReturnType<typeof domainSetupRequests>, path: string) => requests.find((r) => r.path === path);

describe('domainSetupRequests', () => {
  it('puts a read and a write role, their mappings, then the index settings: each a PUT of the whole state', () => {
    // Act
    const requests = domainSetupRequests(access());
    // Assess
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /_plugins/_security/api/roles/${SEARCH_READ_ROLE}`,
      `PUT /_plugins/_security/api/rolesmapping/${SEARCH_READ_ROLE}`,
      `PUT /_plugins/_security/api/roles/${SEARCH_WRITE_ROLE}`,
      `PUT /_plugins/_security/api/rolesmapping/${SEARCH_WRITE_ROLE}`,
      'PUT /asof-versions/_settings',
    ]);
    expect(requestAt(requests, '/asof-versions/_settings')!.body).toEqual(INDEX_SETTINGS);
    // Replicas follow the domain's size: none on one node (a single-node dev domain stays green), one from two nodes.
    expect(INDEX_SETTINGS['index.auto_expand_replicas']).toBe('0-1');
  });

  it('limits both roles to the one index: readers search, count and ping; writers also bulk-write, delete and refresh', () => {
    // Act
    const requests = domainSetupRequests(access());
    // Assess
    expect(requestAt(requests, `/_plugins/_security/api/roles/${SEARCH_READ_ROLE}`)!.body).toEqual({
      cluster_permissions: ['cluster:monitor/health'],
      index_permissions: [{ index_patterns: ['asof-versions'], allowed_actions: ['read'] }],
    });
    expect(requestAt(requests, `/_plugins/_security/api/roles/${SEARCH_WRITE_ROLE}`)!.body).toEqual({
      cluster_permissions: ['cluster:monitor/health', 'indices:data/write/bulk'],
      index_permissions: [{ index_patterns: ['asof-versions'], allowed_actions: ['read', 'write', 'delete', 'indices:admin/refresh*'] }],
    });
    const all = JSON.stringify(requests.filter((r) => r.path.includes('/roles/')));
    expect(all).not.toMatch(/create_index|indices_all|cluster_all|unlimited|"\*"/);
  });

  it('maps exactly the bound roles as backend roles, each once and in a stable order, and clears users and hosts', () => {
    // Prepare
    const readRoles = [roleArn('b-search'), roleArn('a-search'), roleArn('b-search')];
    // Act
    const requests = domainSetupRequests(access({ readRoles, writeRoles: [] }));
    // Assess
    expect(requestAt(requests, `/_plugins/_security/api/rolesmapping/${SEARCH_READ_ROLE}`)!.body).toEqual({
      backend_roles: [roleArn('a-search'), roleArn('b-search')],
      hosts: [],
      users: [],
    });
    expect(requestAt(requests, `/_plugins/_security/api/rolesmapping/${SEARCH_WRITE_ROLE}`)!.body).toEqual({
      backend_roles: [],
      hosts: [],
      users: [],
    });
    expect(domainSetupRequests(access({ readRoles }))).toEqual(domainSetupRequests(access({ readRoles: [...readRoles].reverse() })));
  });

  it('refuses role ARNs that are not IAM roles, naming them', () => {
    expect(() => domainSetupRequests(access({ readRoles: ['*'] }))).toThrow(/read roles: not IAM role ARNs: \*/);
    expect(() => domainSetupRequests(access({ writeRoles: ['arn:aws:iam::123456789012:user/someone'] }))).toThrow(/write roles/);
    expect(() => domainSetupRequests(access({ readRoles: ['arn:aws:iam::123:role/short-account'] }))).toThrow(/not IAM role ARNs/);
  });

  it('refuses an index name that is not a plain OpenSearch index name (it goes into a path and a pattern)', () => {
    for (const index of ['', 'Asof', 'asof/../_security', 'asof-*', '_all', 'a b']) {
      expect(() => domainSetupRequests(access({ index })), index).toThrow(/Invalid index name/);
    }
  });
});
