import { Duration } from 'aws-cdk-lib';
import { EndpointType, LambdaIntegration, MethodLoggingLevel, Period, ResponseType, RestApi, type IResource } from 'aws-cdk-lib/aws-apigateway';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Plan } from '../functions/accounts/plans.ts';
import { pathsOf, type Route } from '../functions/http/route.ts';
import { RouteFunction } from './route-function.ts';

export interface LawApiProps {
  prefix: string;
  routes: readonly Route[];
  plans: readonly Plan[];
  environment: Record<string, string>;
  memorySize: number;
  timeout: Duration;
  logRetention: RetentionDays;
}

/** The spec's error envelope for API Gateway's own refusals (its request id stands in for ours). */
const envelope = (code: string, message: string) => JSON.stringify({ error: { code, message, requestId: '$context.requestId' } });

/** Gateway responses reshaped to the spec's envelope: status, code, and Retry-After where the spec gives one. */
export const GATEWAY_RESPONSES = [
  { type: ResponseType.THROTTLED, status: '429', code: 'rate_limited', message: 'Too many requests: slow down.', retryAfter: '60' },
  { type: ResponseType.QUOTA_EXCEEDED, status: '429', code: 'monthly_limit_exceeded', message: 'The plan’s requests for this period are used up.', retryAfter: '3600' },
  { type: ResponseType.UNAUTHORIZED, status: '401', code: 'invalid_key', message: 'The API key is not valid.' },
  { type: ResponseType.ACCESS_DENIED, status: '403', code: 'missing_scope', message: 'The API key may not call this endpoint.' },
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, status: '404', code: 'no_route', message: 'No such endpoint. See /v1/openapi.json.' },
  { type: ResponseType.WAF_FILTERED, status: '429', code: 'rate_limited', message: 'Too many requests from this token or address: slow down.', retryAfter: '60' },
  { type: ResponseType.DEFAULT_4XX, status: undefined, code: 'bad_request', message: 'The request was refused before it reached the API.' },
  { type: ResponseType.DEFAULT_5XX, status: undefined, code: 'internal_error', message: 'The service failed; retry later.' },
] as const;

/** The REST API built from the route table: `/v1`, every route at /law/* and /statutes/*, one function per route. */
export class LawApi extends Construct {
  readonly api: RestApi;
  readonly functions: Map<string, RouteFunction>;

  constructor(scope: Construct, id: string, props: LawApiProps) {
    super(scope, id);
    this.api = new RestApi(this, 'Api', {
      restApiName: `${props.prefix}-api`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      deployOptions: {
        stageName: 'v1',
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
      },
      cloudWatchRole: true,
      // No CORS: the API is called by servers and tools, not browsers on other origins.
    });

    for (const r of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(`Response${r.type.responseType}`, {
        type: r.type,
        ...(r.status && { statusCode: r.status }),
        responseHeaders: {
          'Content-Type': "'application/json; charset=utf-8'",
          ...('retryAfter' in r && { 'Retry-After': `'${r.retryAfter}'` }),
        },
        templates: { 'application/json': envelope(r.code, r.message) },
      });
    }

    this.functions = new Map();
    for (const route of props.routes) {
      const fn = new RouteFunction(this, `Route-${route.id}`, {
        routeId: route.id,
        functionName: `${props.prefix}-${route.id}`,
        environment: props.environment,
        memorySize: props.memorySize,
        timeout: props.timeout,
        logRetention: props.logRetention,
      });
      this.functions.set(route.id, fn);
      const integration = new LambdaIntegration(fn.fn, { proxy: true });
      for (const path of pathsOf(route)) {
        const resource = resourceAt(this.api.root, path);
        for (const method of route.methods) resource.addMethod(method, integration);
      }
    }

    // Coarse throttles per plan tier in front of the exact in-function meter: never below what the meter admits.
    for (const plan of props.plans) {
      this.api.addUsagePlan(`Plan-${plan.id}`, {
        name: `${props.prefix}-${plan.id}`,
        description: `${plan.name}: ${plan.perMinute}/minute, ${plan.daily} units/day, ${plan.monthly} units/month (exact limits are the meter's)`,
        throttle: { rateLimit: Math.max(1, Math.ceil((plan.perMinute / 60) * 2)), burstLimit: plan.perMinute },
        quota: { limit: plan.monthly, period: Period.MONTH },
        apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
      });
    }
  }
}

/** The resource for a path such as /law/cases/{clusterId}/cited-by, creating the missing parts. */
function resourceAt(root: IResource, path: string): IResource {
  let resource = root;
  for (const part of path.split('/').filter(Boolean)) resource = resource.getResource(part) ?? resource.addResource(part);
  return resource;
}
