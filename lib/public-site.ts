import { Validations } from 'aws-cdk-lib';
import { EndpointType, LambdaIntegration, ResponseType, RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import type { Page } from '../functions/http/pages/page.ts';
import { AsofFunction } from './asof-function.ts';
import { executeApiUrl, loggedStage, resourceAt } from './rest-resources.ts';
import type { StoreBinding } from './store-binding.ts';

export interface PublicSiteProps {
  prefix: string;
  /** The site's pages (functions/http/pages/): one GET method and one function each. */
  pages: readonly Page[];
  /** Keep API Gateway's own https://<id>.execute-api… address. Default: true; false when the stage has its domain. */
  defaultEndpoint?: boolean;
  /** The law's versions, which every page reads. */
  versions: StoreBinding;
  logRetention: RetentionDays;
  /**
   * What sets the account's API Gateway logging role (the law API's): the site's stage logs too, and must not be
   * created before the role is in place. The site sets no role of its own: it is one setting per account and region.
   */
  loggingRole: IDependable;
}

/** The site's refusals by API Gateway and the web ACL, as a reader of the site should see them. */
const SITE_GATEWAY_RESPONSES: ReadonlyArray<{ type: ResponseType; status: string; message: string; retryAfter?: string }> = [
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    status: '404',
    message: 'Not found. Permalinks have the form /law/<jurisdiction>/<corpus>/<key>.',
  },
  { type: ResponseType.WAF_FILTERED, status: '429', message: 'Too many requests from this address: slow down.', retryAfter: '60' },
];

/** The site's stage name: its address without a custom domain is `https://<api-id>.execute-api.<region>.<suffix>/site`. */
const SITE_STAGE = 'site';

/**
 * The public web site of the specification's `{site_url}`: the permalink pages, as a REST API of their own beside the
 * versioned one, so that they sit at the root of a custom domain while the API is mapped at `/v1`, and the law API's
 * route table stays exactly its routes. Public, read-only (the versions table), no key: the stage's web ACL limits
 * each address, as it does the API's public routes.
 */
export class PublicSite extends Construct {
  readonly api: RestApi;
  readonly functions: ReadonlyMap<string, AsofFunction>;

  constructor(scope: Construct, id: string, props: PublicSiteProps) {
    super(scope, id);
    this.api = new RestApi(this, 'Api', {
      restApiName: `${props.prefix}-site`,
      description: 'The public site: permalink pages',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      deployOptions: loggedStage(this, SITE_STAGE, props.logRetention),
      disableExecuteApiEndpoint: props.defaultEndpoint === false,
      cloudWatchRole: false,
    });
    this.api.deploymentStage.node.addDependency(props.loggingRole);
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Each page checks its own input (an unknown citation is 404, a malformed date 400) and answers in HTML; a gateway validator would answer JSON.',
      },
      {
        id: 'AwsSolutions-APIG4',
        reason: 'The permalink pages are public by the specification: every answer links to one, and anyone may follow it.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'The permalink pages are public by the specification: no user pool, no key; the web ACL limits each address.',
      },
    );

    // A path with no page is 404 (API Gateway's default is a 403 "Missing Authentication Token"), and the web ACL's
    // refusal 429 with Retry-After, as on the API; in plain text, whatever the browser accepts.
    for (const r of SITE_GATEWAY_RESPONSES) {
      const body = `${r.message}\n`;
      this.api.addGatewayResponse(`Response${r.type.responseType}`, {
        type: r.type,
        statusCode: r.status,
        responseHeaders: { 'Content-Type': "'text/plain; charset=utf-8'", ...(r.retryAfter && { 'Retry-After': `'${r.retryAfter}'` }) },
        templates: { 'application/json': body, 'text/html': body },
      });
    }

    const functions = new Map<string, AsofFunction>();
    for (const page of props.pages) {
      const fn = new AsofFunction(this, `Page-${page.id}`, {
        entry: `pages/${page.id}.ts`,
        functionName: `${props.prefix}-page-${page.id}`,
        description: `GET ${page.path}: the public site's ${page.id} page`,
        // A page is two reads of one table: the smallest sizes that start quickly are enough.
        memorySize: 512,
        logRetention: props.logRetention,
      });
      props.versions.bind(fn, 'read');
      resourceAt(this.api.root, page.path).addMethod('GET', new LambdaIntegration(fn.fn, { proxy: true }));
      functions.set(page.id, fn);
    }
    this.functions = functions;
  }

  /** The site's address on API Gateway's own domain (no trailing slash). */
  get defaultUrl(): string {
    return executeApiUrl(this.api, SITE_STAGE);
  }
}
