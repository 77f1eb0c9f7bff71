import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { describe, expect, it } from 'vitest';
import { SITE_READS_PER_MINUTE } from '../../functions/accounts/edge-limit.ts';
import { EdgeFirewall, type EdgeFirewallProps, SITE_PAGE_READS } from '../../lib/edge-firewall.ts';

type Resources = Record<string, { Properties: Record<string, any>; DependsOn?: string[] }>;

/** A stack with a one-method REST API on a `v1` stage and the firewall in front of it. */
function synth(props: Partial<EdgeFirewallProps> = {}): Template {
  const stack = new Stack(new App(), 'edge');
  const api = new RestApi(stack, 'Api', { deployOptions: { stageName: 'v1' } });
  api.root.addMethod('GET', new MockIntegration());
  new EdgeFirewall(stack, 'Edge', { prefix: 'asof-test', stage: api.deploymentStage, ...props });
  return Template.fromStack(stack);
}

const ruleNamed = (t: Template, name: string) => {
  const acl = Object.values(t.findResources('AWS::WAFv2::WebACL') as Resources)[0]!.Properties;
  return (acl.Rules as Array<Record<string, any>>).find((r) => r.Name === name)!;
};

const HAS_AUTHORIZATION = {
  SizeConstraintStatement: {
    FieldToMatch: { SingleHeader: { Name: 'authorization' } },
    ComparisonOperator: 'GT',
    Size: 0,
    TextTransformations: [{ Priority: 0, Type: 'NONE' }],
  },
};

describe('the edge firewall', () => {
  it('is a regional web ACL that allows by default, with metrics, and exactly the three rate rules', () => {
    const t = synth();
    t.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const acl = Object.values(t.findResources('AWS::WAFv2::WebACL') as Resources)[0]!.Properties;
    expect(acl).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} }, VisibilityConfig: { CloudWatchMetricsEnabled: true } });
    expect((acl.Rules as Array<{ Name: string }>).map((r) => r.Name)).toEqual([
      'per-token-rate',
      'per-ip-rate-without-token',
      'per-ip-rate-site-reads',
    ]);
    for (const rule of acl.Rules as Array<Record<string, any>>) {
      // A plain block: API Gateway answers with its WAF_FILTERED gateway response (a custom WAF response would win over it).
      expect(rule.Action, rule.Name).toEqual({ Block: {} });
      expect(rule.VisibilityConfig, rule.Name).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true });
    }
  });

  it('limits each presented token to 120 requests a 60-second window, keyed on the Authorization header alone', () => {
    const rule = ruleNamed(synth(), 'per-token-rate');
    expect(rule.Statement).toEqual({
      RateBasedStatement: {
        Limit: 120,
        EvaluationWindowSec: 60,
        AggregateKeyType: 'CUSTOM_KEYS',
        CustomKeys: [{ Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }],
      },
    });
  });

  it('limits each IP address for the requests without an Authorization value only', () => {
    const rule = ruleNamed(synth(), 'per-ip-rate-without-token');
    expect(rule.Statement).toEqual({
      RateBasedStatement: {
        Limit: 120,
        EvaluationWindowSec: 60,
        AggregateKeyType: 'IP',
        ScopeDownStatement: { NotStatement: { Statement: HAS_AUTHORIZATION } },
      },
    });
  });

  it(`limits each IP address to ${SITE_READS_PER_MINUTE} requests a window to the site's pages that read the law`, () => {
    const rule = ruleNamed(synth(), 'per-ip-rate-site-reads');
    expect(rule.Statement).toEqual({
      RateBasedStatement: {
        Limit: SITE_READS_PER_MINUTE,
        EvaluationWindowSec: 60,
        AggregateKeyType: 'IP',
        ScopeDownStatement: {
          RegexMatchStatement: {
            RegexString: SITE_PAGE_READS,
            FieldToMatch: { UriPath: {} },
            TextTransformations: [{ Priority: 0, Type: 'NONE' }],
          },
        },
      },
    });
    expect(rule.Priority).toBe(2);
    expect(ruleNamed(synth({ perIpSiteReadsLimit: 30 }), 'per-ip-rate-site-reads').Statement.RateBasedStatement.Limit).toBe(30);
  });

  it("matches the section pages and the search page, at a domain's root or under the site stage, and nothing else", () => {
    const reads = new RegExp(SITE_PAGE_READS);
    for (const path of ['/law/dc/statutes/28-3814', '/site/law/us/rules/frap-32', '/search', '/site/search', '/search/'])
      expect(reads.test(path), path).toBe(true);
    for (const path of ['/', '/site/', '/docs', '/cite', '/favicon.ico', '/v1/law/lookup', '/v1/law/search', '/searchx', '/lawyers'])
      expect(reads.test(path), path).toBe(false);
  });

  it('takes its limits and window from props', () => {
    const t = synth({ perTokenLimit: 300, perIpLimit: 50, windowSeconds: 300 });
    expect(ruleNamed(t, 'per-token-rate').Statement.RateBasedStatement).toMatchObject({ Limit: 300, EvaluationWindowSec: 300 });
    expect(ruleNamed(t, 'per-ip-rate-without-token').Statement.RateBasedStatement).toMatchObject({ Limit: 50, EvaluationWindowSec: 300 });
  });

  it('refuses a limit WAF would refuse at deploy time', () => {
    expect(() => synth({ perTokenLimit: 5 })).toThrow(/perTokenLimit must be a whole number from 10/);
    expect(() => synth({ perIpLimit: 12.5 })).toThrow(/perIpLimit must be a whole number/);
    expect(() => synth({ perTokenLimit: 3_000_000_000 })).toThrow(/perTokenLimit/);
  });

  it('is associated with the API stage', () => {
    const t = synth();
    const [stageId] = Object.keys(t.findResources('AWS::ApiGateway::Stage'));
    const [aclId] = Object.keys(t.findResources('AWS::WAFv2::WebACL'));
    t.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [aclId, 'Arn'] },
      ResourceArn: { 'Fn::Join': ['', Match.arrayWith([':apigateway:', '/stages/', { Ref: stageId }])] },
    });
  });

  it('logs the blocked requests only, to an aws-waf-logs- group named by its bare ARN, with the Authorization header redacted', () => {
    const t = synth();
    const [groupId, group] = Object.entries(t.findResources('AWS::Logs::LogGroup') as Resources)[0]!;
    expect(group.Properties.LogGroupName).toBe('aws-waf-logs-asof-test-edge');
    const [, logging] = Object.entries(t.findResources('AWS::WAFv2::LoggingConfiguration') as Resources)[0]!;
    const destination = JSON.stringify(logging.Properties.LogDestinationConfigs);
    expect(destination).toContain(':log-group:');
    expect(destination).toContain(JSON.stringify({ Ref: groupId }));
    expect(destination).not.toContain(':*');
    expect(logging.Properties.RedactedFields).toEqual([{ SingleHeader: { Name: 'authorization' } }]);
    expect(logging.Properties.LoggingFilter).toEqual({
      DefaultBehavior: 'DROP',
      Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
    });
    expect(logging.DependsOn).toContain(groupId);
  });
});
