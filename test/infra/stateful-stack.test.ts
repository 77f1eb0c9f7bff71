import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { StatefulStack } from '../../lib/stateful-stack.ts';

const template = () => Template.fromStack(new StatefulStack(new App(), 'test-stateful', { prefix: 'asof-test' }));

describe('StatefulStack', () => {
  it('holds the four tables the adapters use, keyed pk/sk, on demand, with point-in-time recovery, retained', () => {
    const t = template();
    t.resourceCountIs('AWS::DynamoDB::GlobalTable', 4);
    for (const name of ['asof-test-versions', 'asof-test-accounts', 'asof-test-meters', 'asof-test-ops']) {
      t.hasResource('AWS::DynamoDB::GlobalTable', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: Match.objectLike({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
        }),
      });
    }
  });

  it('expires accounts, meters and ops items by TTL, never versions', () => {
    const tables = template().findResources('AWS::DynamoDB::GlobalTable');
    const ttl = Object.fromEntries(Object.values(tables).map((r) => [r.Properties.TableName, r.Properties.TimeToLiveSpecification ?? null]));
    expect(ttl['asof-test-versions']).toBeNull();
    expect(ttl['asof-test-accounts']).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(ttl['asof-test-meters']).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(ttl['asof-test-ops']).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });

  it('keeps stable logical ids for the stateful resources', () => {
    const ids = Object.keys(template().findResources('AWS::DynamoDB::GlobalTable')).sort();
    expect(ids.map((id) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['AccountsTable', 'MetersTable', 'OpsTable', 'VersionsTable']);
  });
});
