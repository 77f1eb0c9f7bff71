import { Duration, Validations } from 'aws-cdk-lib';
import {
  ApiKeySourceType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  type MethodOptions,
  ResponseType,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import { usagePlanName, usagePlanThrottle } from '../functions/accounts/gateway-tier.ts';
import type { Plan } from '../functions/accounts/plans.ts';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../functions/http/error-status.ts';
import { pathsOf, type Route, type RouteStore } from '../functions/http/route.ts';
import { AsofFunction, REPORTERS_DB_DIR, reportersDbLayer } from './asof-function.ts';
import { executeApiUrl, loggedStage, resourceAt } from './rest-resources.ts';
import type { Access, StageBindings, StoreBinding } from './store-binding.ts';

export interface LawApiProps {
  prefix: string;
  routes: readonly Route[];
  plans: readonly Plan[];
  /** The stage's stores; a route is given those it declares (Route.stores), plus the keys and the meters. */
  bindings: StageBindings;
  /** Keep API Gateway's own https://<id>.execute-api… address. Default: true; false when the stage has its domain. */
  defaultEndpoint?: boolean;
  memorySize: number;
  timeout: Duration;
  logRetention: RetentionDays;
}

/** The API's one stage, its version: `{base_url}` ends in it. */
export const API_STAGE = 'v1';

/** What each store a route declares means for its function: which binding, with what access. */
const ROUTE_STORE_BINDING: Record<RouteStore, [keyof StageBindings, Access]> = {
  versions: ['versions', 'read'],
  formats: ['ops', 'read'],
  ops: ['ops', 'readwrite'],
  search: ['search', 'read'],
  // The citation lookup writes what the fallback finds back into the replica.
  caselaw: ['caselaw', 'readwrite'],
  fallback: ['fallback', 'read'],
};

/** The bindings of a route's function, each with the widest access any of its declared stores asks for. */
function routeBindings(route: Pick<Route, 'auth' | 'stores'>, bindings: StageBindings): Array<[StoreBinding, Access]> {
  const wanted = new Map<keyof StageBindings, Access>([
    ['accounts', 'read'],
    ['meters', 'readwrite'],
  ]);
  for (const store of route.stores) {
    const [name, access] = ROUTE_STORE_BINDING[store];
    if (wanted.get(name) !== 'readwrite') wanted.set(name, access);
  }
  return [...wanted].flatMap(([name, access]) => {
    const binding = bindings[name];
    // A store the stage does not have: the function gets nothing for it and answers the spec's 503.
    return binding ? [[binding, access] as [StoreBinding, Access]] : [];
  });
}

/** The spec's error envelope for API Gateway's own refusals (its request id stands in for ours). */
const envelope = (code: string, message: string) => JSON.stringify({ error: { code, message, requestId: '$context.requestId' } });

/**
 * Gateway responses reshaped to the spec's envelope: status, code, and Retry-After where the spec gives one. The
 * authorizer throws Unauthorized for a missing or empty bearer token (and API Gateway answers a request without the
 * header the same way, without calling it): UNAUTHORIZED. A token that cannot be a key is denied by the authorizer:
 * ACCESS_DENIED. A well-formed key whose hash is no enabled API key of a usage plan: INVALID_API_KEY. The scope
 * (403 `missing_scope`) is the function's to check. WAF_FILTERED is the WAF's rate rules blocking (no custom WAF
 * response, which would take precedence over this one and could not carry the request id).
 */
const GATEWAY_RESPONSES = [
  { type: ResponseType.UNAUTHORIZED, status: '401', code: 'missing_bearer', message: 'Send the API key as `Authorization: Bearer <key>`.' },
  { type: ResponseType.ACCESS_DENIED, status: '401', code: 'invalid_key', message: 'The API key is not valid.' },
  { type: ResponseType.INVALID_API_KEY, status: '401', code: 'invalid_key', message: 'The API key is not valid or has been revoked.' },
  { type: ResponseType.THROTTLED, status: '429', code: 'rate_limited', message: 'Too many requests: slow down.', retryAfter: '60' },
  {
    type: ResponseType.WAF_FILTERED,
    status: '429',
    code: 'rate_limited',
    message: 'Too many requests from this token or address: slow down.',
    retryAfter: '60',
  },
  // The usage plans set no quota (see LawApi); kept in the envelope should one ever be set.
  {
    type: ResponseType.QUOTA_EXCEEDED,
    status: '429',
    code: 'monthly_limit_exceeded',
    message: 'The plan’s requests for this period are used up.',
    retryAfter: '3600',
  },
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, status: '404', code: 'no_route', message: 'No such endpoint. See /v1/openapi.json.' },
  { type: ResponseType.DEFAULT_4XX, status: undefined, code: 'bad_request', message: 'The request was refused before it reached the API.' },
  // A 503 among them carries Retry-After, as every 503 of the API does.
  {
    type: ResponseType.DEFAULT_5XX,
    status: undefined,
    code: 'internal_error',
    message: 'The service failed; retry later.',
    retryAfter: String(UNAVAILABLE_RETRY_AFTER_SECONDS),
  },
] as const;

/** How long API Gateway keeps an authorizer's answer for one Authorization header. */
const AUTHORIZER_CACHE_TTL = Duration.minutes(5);

/**
 * The REST API built from the route table: `/v1`, every route at /law/* and /statutes/*, one function per route; the
 * bearer routes behind the Lambda authorizer and an API key, the public routes behind neither.
 */
export class LawApi extends Construct {
  readonly api: RestApi;
  /** One function per route, by route id. */
  readonly functions: Map<string, AsofFunction>;
  /** The bearer routes' Lambda authorizer (not a route). */
  readonly authorizerFunction: AsofFunction;

  constructor(scope: Construct, id: string, props: LawApiProps) {
    super(scope, id);
    this.api = new RestApi(this, 'Api', {
      restApiName: `${props.prefix}-api`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      deployOptions: loggedStage(this, API_STAGE, props.logRetention),
      disableExecuteApiEndpoint: props.defaultEndpoint === false,
      cloudWatchRole: true,
      // The authorizer names each call's API key (the key's hash), so that its tier's usage plan throttles it.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // No CORS: the API is called by servers and tools, not browsers on other origins.
    });

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Every route validates its input in its function, with the zod schema the OpenAPI document is generated from, answering the ' +
          "specification's error codes (missing_fields, bad_as_of, …) in its envelope; a gateway validator would answer with its own body.",
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'Customers are API-key customers (the specification): bearer routes use the Lambda authorizer and API keys, public routes are public.',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "The account's API Gateway logging role: AWS's managed policy is the documented one for it and grants only CloudWatch Logs writes.",
      },
    );

    for (const r of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(`Response${r.type.responseType}`, {
        type: r.type,
        ...(r.status && { statusCode: r.status }),
        responseHeaders: {
          'Content-Type': "'application/json; charset=utf-8'",
          'X-Content-Type-Options': "'nosniff'",
          ...('retryAfter' in r && { 'Retry-After': `'${r.retryAfter}'` }),
        },
        templates: { 'application/json': envelope(r.code, r.message) },
      });
    }

    this.authorizerFunction = new AsofFunction(this, 'Authorizer', {
      entry: 'authorizer.ts',
      functionName: `${props.prefix}-authorizer`,
      description: 'Bearer routes: the key in the Authorization header as its API Gateway key (its SHA-256); no I/O',
      // It hashes one header: the smallest size is plenty, and it has no store to wait for.
      memorySize: 256,
      timeout: Duration.seconds(3),
      logRetention: props.logRetention,
    });
    const authorizer = new TokenAuthorizer(this, 'BearerAuthorizer', {
      authorizerName: `${props.prefix}-bearer`,
      handler: this.authorizerFunction.fn,
      identitySource: IdentitySource.header('Authorization'),
      resultsCacheTtl: AUTHORIZER_CACHE_TTL,
    });
    const bearer: MethodOptions = { authorizer, apiKeyRequired: true };

    this.functions = new Map();
    let reportersDb: ILayerVersion | undefined;
    for (const route of props.routes) {
      const bound = routeBindings(route, props.bindings);
      const network = bound.map(([b]) => b.network).find((n) => n !== undefined);
      const assets = route.assets ?? [];
      if (assets.includes('reporters-db')) reportersDb ??= reportersDbLayer(this, 'ReportersDbLayer');
      const fn = new AsofFunction(this, `Route-${route.id}`, {
        entry: `routes/${route.id}.ts`,
        functionName: `${props.prefix}-${route.id}`,
        description: `${route.methods.join(', ')} ${route.path}: ${route.summary}`.slice(0, 256),
        ...(assets.includes('reporters-db') && { environment: { REPORTERS_DB_DIR } }),
        memorySize: props.memorySize,
        timeout: props.timeout,
        logRetention: props.logRetention,
        ...(network && { network }),
        ...(reportersDb && assets.includes('reporters-db') && { layers: [reportersDb] }),
      });
      for (const [binding, access] of bound) fn.bind(binding, access);
      this.functions.set(route.id, fn);
      const integration = new LambdaIntegration(fn.fn, { proxy: true });
      for (const path of pathsOf(route)) {
        const resource = resourceAt(this.api.root, path);
        for (const method of route.methods) {
          const added = resource.addMethod(method, integration, route.auth.kind === 'bearer' ? bearer : {});
          if (route.auth.kind === 'public') {
            Validations.of(added).acknowledge({
              id: 'AwsSolutions-APIG4',
              reason: `${method} ${path} is public by the specification (coverage, quality, health, the specification itself).`,
            });
          }
        }
      }
    }

    // Coarse throttles per plan tier in front of the exact in-function meter, never below what the meter admits
    // (usagePlanThrottle). No request quota: it would count the calls the meter refuses too, so a burst of refused
    // calls could lock a key out for the rest of the month, and it cannot count units. The meter's caps are exact.
    // Each key's API key joins its tier's plan when it is issued (`asof keys create --stage`).
    for (const plan of props.plans) {
      this.api.addUsagePlan(`Plan-${plan.id}`, {
        name: usagePlanName(props.prefix, plan.id),
        description: `${plan.name}: ${plan.perMinute}/minute, ${plan.daily} units/day, ${plan.monthly} units/month (exact limits are the meter's)`,
        throttle: usagePlanThrottle(plan.perMinute),
        apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
      });
    }
  }

  /** The resource that sets the account's API Gateway logging role; another API's logging stage must come after it. */
  get loggingRole(): IDependable {
    return this.api.node.findChild('Account') as IDependable;
  }

  /** The API's address on API Gateway's own domain, its stage included (no trailing slash). */
  get defaultUrl(): string {
    return executeApiUrl(this.api, API_STAGE);
  }
}
