import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { EDGE_LIMIT_PER_MINUTE, SITE_READS_PER_MINUTE } from '../functions/accounts/edge-limit.ts';

export interface EdgeFirewallProps {
  prefix: string;
  /** The API stage the web ACL protects (more with `protect`). */
  stage: Stage;
  /** Requests a presented token (Authorization header value) may make per window. Default: 120, the spec's edge limit. */
  perTokenLimit?: number;
  /** Requests an IP address may make per window without an Authorization header (the public endpoints). Default: 120. */
  perIpLimit?: number;
  /**
   * Requests an IP address may make per window to the site's pages that read the law (SITE_PAGE_READS: section pages
   * and their comparisons, the search page). Default: SITE_READS_PER_MINUTE, the pages' own budget in process.
   */
  perIpSiteReadsLimit?: number;
  /** The rate rules' window in seconds: 60, 120, 300 or 600. Default: 60. */
  windowSeconds?: 60 | 120 | 300 | 600;
  /** How long the log of blocked requests is kept. Default: one month. */
  logRetention?: RetentionDays;
}

/** WAF's bounds on a rate-based rule's limit. */
const MIN_RATE_LIMIT = 10;
const MAX_RATE_LIMIT = 2_000_000_000;

const AUTHORIZATION = 'authorization';

/**
 * The paths of the site's pages that read the law on every request: `/law/<jurisdiction>/<corpus>/<key>` and
 * `/search`, at a custom domain's root or under the `site` stage on API Gateway's own domain. The API (`/v1/…`) and
 * the site's other pages (the front page, `/cite`, `/docs`) do not match.
 */
export const SITE_PAGE_READS = '^(/site)?/(law/|search/?$)';

/** True for a request that carries an Authorization header with a value. */
const hasAuthorization: CfnWebACL.StatementProperty = {
  sizeConstraintStatement: {
    fieldToMatch: { singleHeader: { Name: AUTHORIZATION } },
    comparisonOperator: 'GT',
    size: 0,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
};

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

/**
 * The stage's edge rule as a WAF web ACL (REGIONAL, on the API's stage), counted before any key is looked up:
 * - per token: a rate rule aggregated on the Authorization header's value. WAF leaves a request that lacks an
 *   aggregation key's component out of the rule, so this rule never sees requests without the header;
 * - per IP for exactly those: a rate rule per address, scoped down to requests with no Authorization value
 *   (NOT "header size > 0", the statement WAF documents for "header missing").
 * - per IP for the site's pages that read the law (SITE_PAGE_READS), however many pages: the in-process budget of
 *   functions/http/pages/page-budget.ts, which each function instance would otherwise count alone.
 * All block without a custom response, so API Gateway answers with its WAF_FILTERED gateway response: 429
 * `rate_limited`, Retry-After and the request id in the envelope (lib/law-api.ts). Blocked requests are logged, with
 * the Authorization header redacted; allowed ones are not (they are in the API's own logs).
 */
export class EdgeFirewall extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeFirewallProps) {
    super(scope, id);
    const perToken = checkedLimit('perTokenLimit', props.perTokenLimit ?? EDGE_LIMIT_PER_MINUTE);
    const perIp = checkedLimit('perIpLimit', props.perIpLimit ?? EDGE_LIMIT_PER_MINUTE);
    const perIpSiteReads = checkedLimit('perIpSiteReadsLimit', props.perIpSiteReadsLimit ?? SITE_READS_PER_MINUTE);
    const evaluationWindowSec = props.windowSeconds ?? 60;
    const metric = (name: string) => `${props.prefix}-${name}`;

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: metric('edge'),
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(metric('edge')),
      rules: [
        {
          name: 'per-token-rate',
          priority: 0,
          action: { block: {} },
          visibilityConfig: visibility(metric('per-token-rate')),
          statement: {
            rateBasedStatement: {
              limit: perToken,
              evaluationWindowSec,
              aggregateKeyType: 'CUSTOM_KEYS',
              customKeys: [{ header: { name: AUTHORIZATION, textTransformations: [{ priority: 0, type: 'NONE' }] } }],
            },
          },
        },
        {
          name: 'per-ip-rate-without-token',
          priority: 1,
          action: { block: {} },
          visibilityConfig: visibility(metric('per-ip-rate-without-token')),
          statement: {
            rateBasedStatement: {
              limit: perIp,
              evaluationWindowSec,
              aggregateKeyType: 'IP',
              scopeDownStatement: { notStatement: { statement: hasAuthorization } },
            },
          },
        },
        {
          name: 'per-ip-rate-site-reads',
          priority: 2,
          action: { block: {} },
          visibilityConfig: visibility(metric('per-ip-rate-site-reads')),
          statement: {
            rateBasedStatement: {
              limit: perIpSiteReads,
              evaluationWindowSec,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                regexMatchStatement: {
                  regexString: SITE_PAGE_READS,
                  fieldToMatch: { uriPath: {} },
                  textTransformations: [{ priority: 0, type: 'NONE' }],
                },
              },
            },
          },
        },
      ],
    });

    this.protect('Association', props.stage);

    // WAF delivers only to a log group whose name begins with aws-waf-logs-, named by its ARN without the `:*` suffix.
    const logs = new LogGroup(this, 'BlockedRequests', {
      logGroupName: `aws-waf-logs-${props.prefix}-edge`,
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const logGroupArn = Stack.of(this).formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: logs.logGroupName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const logging = new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      logDestinationConfigs: [logGroupArn],
      redactedFields: [{ singleHeader: { Name: AUTHORIZATION } }],
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
      },
    });
    logging.node.addDependency(logs);
  }

  /** Puts another stage (the public site's) behind the same rules; one web ACL may guard several stages. */
  protect(id: string, stage: Stage): void {
    new CfnWebACLAssociation(this, id, { resourceArn: stage.stageArn, webAclArn: this.webAcl.attrArn });
  }
}

function checkedLimit(name: string, limit: number): number {
  if (!Number.isInteger(limit) || limit < MIN_RATE_LIMIT || limit > MAX_RATE_LIMIT) {
    throw new Error(`EdgeFirewall ${name} must be a whole number from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT} (got ${limit})`);
  }
  return limit;
}
