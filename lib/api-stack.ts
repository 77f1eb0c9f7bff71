import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PlanBook } from '../functions/accounts/plans.ts';
import { PAGES } from '../functions/http/pages/site-pages.ts';
import { ROUTES } from '../functions/http/routes.ts';
import { ENV } from '../functions/lambda/env.ts';
import type { AlarmThresholds } from './alarm-thresholds.ts';
import { ApiDomain, type StageDomain } from './api-domain.ts';
import { CourtListenerToken } from './courtlistener-token.ts';
import { DataSetup, type DataSetupProps } from './data-setup.ts';
import { EdgeFirewall } from './edge-firewall.ts';
import { LawApi } from './law-api.ts';
import type { MonitoredStage } from './monitored-stage.ts';
import { Operations } from './operations.ts';
import { PublicSite } from './public-site.ts';
import type { StageBindings } from './store-binding.ts';

export interface ApiStackProps extends StackProps {
  prefix: string;
  /** The stage's stores (the stateful stack's). */
  bindings: StageBindings;
  /**
   * The stage's own domain: the public site at its root, the API at /v1. Default: API Gateway's addresses, where the
   * API is `https://<id>.execute-api.<region>.amazonaws.com/v1` and the site `https://<other id>…/site`.
   */
  domain?: StageDomain;
  memorySize: number;
  timeoutSeconds: number;
  logRetention: RetentionDays;
  /** Where the stage's alarms are e-mailed. Default: no subscription. */
  alarmEmail?: string;
  /** Overrides of the alarms' default thresholds (lib/alarm-thresholds.ts). Default: none. */
  alarmThresholds?: Partial<AlarmThresholds>;
  /**
   * The stores the deploy-time setup job prepares (Aurora, the search domain); default: no setup job. It lives here,
   * beside the functions whose IAM roles it maps to OpenSearch roles: the stateful stack cannot refer to them.
   */
  setup?: Pick<DataSetupProps, 'caselaw' | 'search'>;
  /** Secrets Manager name of the CourtListener token for the citation lookup's fallback. Default: no fallback. */
  courtListenerTokenSecret?: string;
  /** The stage's other parts its alarms and dashboard watch (the jobs, Aurora, OpenSearch). Default: none. */
  monitored?: Pick<MonitoredStage, 'jobFunctions' | 'jobDeadLetterQueues' | 'jobStateMachines' | 'database' | 'search'>;
}

/**
 * The API of a stage: the route table as API Gateway methods, one function per route, each given only the stores its
 * route uses; the public site's permalink pages beside it; the edge firewall over both, the alarms and the dashboard.
 */
export class ApiStack extends Stack {
  readonly lawApi: LawApi;
  readonly operations: Operations;
  readonly site: PublicSite;
  readonly domain?: ApiDomain;
  readonly edgeFirewall: EdgeFirewall;
  readonly dataSetup?: DataSetup;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    this.lawApi = new LawApi(this, 'LawApi', {
      prefix: props.prefix,
      routes: ROUTES,
      plans: new PlanBook().plans,
      bindings: {
        ...props.bindings,
        ...(props.courtListenerTokenSecret && {
          fallback: new CourtListenerToken(this, 'CourtListenerToken', { secretName: props.courtListenerTokenSecret }),
        }),
      },
      memorySize: props.memorySize,
      timeout: Duration.seconds(props.timeoutSeconds),
      logRetention: props.logRetention,
      // With a domain, the domain is the one address: the execute-api ones would bypass nothing, but would be a second
      // address for every permalink and key.
      defaultEndpoint: !props.domain,
    });
    this.site = new PublicSite(this, 'PublicSite', {
      prefix: props.prefix,
      defaultEndpoint: !props.domain,
      pages: PAGES,
      versions: props.bindings.versions,
      ops: props.bindings.ops,
      ...(props.bindings.search && { search: props.bindings.search }),
      logRetention: props.logRetention,
      loggingRole: this.lawApi.loggingRole,
    });
    if (props.domain) this.domain = new ApiDomain(this, 'Domain', { domain: props.domain, api: this.lawApi.api, site: this.site.api });
    // Every answer's permalinks and the OpenAPI document's server: the domain's, or API Gateway's own addresses.
    const siteUrl = this.domain?.siteUrl ?? this.site.defaultUrl;
    const baseUrl = this.domain?.baseUrl ?? this.lawApi.defaultUrl;
    for (const fn of [...this.lawApi.functions.values(), ...this.site.functions.values()]) {
      fn.addEnvironment(ENV.siteUrl, siteUrl);
      fn.addEnvironment(ENV.baseUrl, baseUrl);
    }
    this.edgeFirewall = new EdgeFirewall(this, 'EdgeFirewall', { prefix: props.prefix, stage: this.lawApi.api.deploymentStage });
    this.edgeFirewall.protect('SiteAssociation', this.site.api.deploymentStage);
    // Alarms and the dashboard over the API, the WAF and whatever else of the stage is given as `monitored`.
    this.operations = new Operations(this, 'Operations', {
      prefix: props.prefix,
      apiStage: this.lawApi.api.deploymentStage,
      routeFunctions: new Map([
        ...[...this.lawApi.functions].map(([routeId, f]) => [routeId, f.fn] as const),
        ...[...this.site.functions].map(([pageId, f]) => [`page-${pageId}`, f.fn] as const),
      ]),
      webAcl: { name: this.edgeFirewall.webAcl.name!, metricName: this.edgeFirewall.webAcl.name! },
      ...props.monitored,
      alarmEmail: props.alarmEmail,
      thresholds: props.alarmThresholds,
    });
    if (props.setup)
      this.dataSetup = new DataSetup(this, 'DataSetup', { prefix: props.prefix, ...props.setup, logRetention: props.logRetention });
  }
}
