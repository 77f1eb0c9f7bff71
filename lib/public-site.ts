import { Validations } from 'aws-cdk-lib';
import { EndpointType, LambdaIntegration, ResponseType, RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { LayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../functions/http/error-status.ts';
import { DOCS_DIR_ENV } from '../functions/http/pages/docs-files.ts';
import { HTML_TYPE, NOT_FOUND_HTML, PAGE_HEADERS, pageHtml } from '../functions/http/pages/html.ts';
import { type Page, type PageStore, storesOf } from '../functions/http/pages/page.ts';
import { AsofFunction } from './asof-function.ts';
import { DOCS_DIR, docsAssetsLayer } from './docs-assets.ts';
import { executeApiUrl, loggedStage, resourceAt } from './rest-resources.ts';
import type { Access, StoreBinding } from './store-binding.ts';

export interface PublicSiteProps {
  prefix: string;
  /** The site's pages (functions/http/pages/): one GET method and one function each. */
  pages: readonly Page[];
  /** Keep API Gateway's own https://<id>.execute-api… address. Default: true; false when the stage has its domain. */
  defaultEndpoint?: boolean;
  /** The law's versions, which the section pages read. */
  versions: StoreBinding;
  /** The operations table: coverage, which the front page and the search page show. */
  ops: StoreBinding;
  /** The search index the search page reads. Default: none (the search page answers 503). */
  search?: StoreBinding;
  logRetention: RetentionDays;
  /**
   * What sets the account's API Gateway logging role (the law API's): the site's stage logs too, and must not be
   * created before the role is in place. The site sets no role of its own: it is one setting per account and region.
   */
  loggingRole: IDependable;
}

/**
 * The site's refusals by API Gateway and the web ACL, as a reader of the site should see them: pages like the site's
 * own (functions/http/pages/html.ts), with a page's headers.
 */
const SITE_GATEWAY_RESPONSES: ReadonlyArray<{ type: ResponseType; status?: string; html: string; retryAfter?: string }> = [
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, status: '404', html: NOT_FOUND_HTML },
  {
    type: ResponseType.WAF_FILTERED,
    status: '429',
    html: pageHtml('Too many requests', '<h1>Too many requests</h1><p>Too many requests from this address: try again in a minute.</p>'),
    retryAfter: '60',
  },
  // Any other refusal or failure of the gateway, with its own status.
  {
    type: ResponseType.DEFAULT_4XX,
    html: pageHtml('Refused', '<h1>Refused</h1><p>The request was refused before it reached the site.</p>'),
  },
  {
    type: ResponseType.DEFAULT_5XX,
    html: pageHtml('Not shown', '<h1>This page could not be shown</h1><p>Try again shortly.</p>'),
    retryAfter: String(UNAVAILABLE_RETRY_AFTER_SECONDS),
  },
];

/** What each store a page declares means for its function: which binding, with what access (coverage writes its cache). */
function pageBinding(props: PublicSiteProps, store: PageStore): [StoreBinding | undefined, Access] {
  if (store === 'versions') return [props.versions, 'read'];
  if (store === 'ops') return [props.ops, 'readwrite'];
  return [props.search, 'read'];
}

/** The site's stage name: its address without a custom domain is `https://<api-id>.execute-api.<region>.<suffix>/site`. */
const SITE_STAGE = 'site';

/**
 * The public web site of the specification's `{site_url}`: the front page, the citation and search pages, the docs and
 * the permalink pages (functions/http/pages/site-pages.ts), as a REST API of their own beside the
 * versioned one, so that they sit at the root of a custom domain while the API is mapped at `/v1`, and the law API's
 * route table stays exactly its routes. Public, no key, each page's function given the stores its page declares: the
 * stage's web ACL limits each address, as it does the API's public routes.
 */
export class PublicSite extends Construct {
  readonly api: RestApi;
  readonly functions: ReadonlyMap<string, AsofFunction>;

  constructor(scope: Construct, id: string, props: PublicSiteProps) {
    super(scope, id);
    this.api = new RestApi(this, 'Api', {
      restApiName: `${props.prefix}-site`,
      description: 'The public site: the front page, search, the docs and the permalink pages',
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

    // A path with no page is 404 (API Gateway's default is a 403 "Missing Authentication Token"), the web ACL's
    // refusal 429 with Retry-After, as on the API, and a failure of the gateway Retry-After too (a 503 among them);
    // an HTML page whatever the browser accepts.
    for (const r of SITE_GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(`Response${r.type.responseType}`, {
        type: r.type,
        ...(r.status && { statusCode: r.status }),
        responseHeaders: {
          'Content-Type': `'${HTML_TYPE}'`,
          'X-Content-Type-Options': "'nosniff'",
          ...Object.fromEntries(Object.entries(PAGE_HEADERS).map(([name, value]) => [name, `'${value.replaceAll("'", "\\'")}'`])),
          ...(r.retryAfter && { 'Retry-After': `'${r.retryAfter}'` }),
        },
        templates: { 'application/json': r.html, 'text/html': r.html },
      });
    }

    const functions = new Map<string, AsofFunction>();
    let docsLayer: LayerVersion | undefined;
    for (const page of props.pages) {
      const bound = storesOf(page).flatMap((store) => {
        const [binding, access] = pageBinding(props, store);
        return binding ? [[binding, access] as const] : [];
      });
      const network = bound.map(([b]) => b.network).find((n) => n !== undefined);
      const usesDocs = page.assets?.includes('docs') ?? false;
      if (usesDocs) docsLayer ??= docsAssetsLayer(this, 'DocsLayer');
      const fn = new AsofFunction(this, `Page-${page.id}`, {
        entry: `pages/${page.id}.ts`,
        functionName: `${props.prefix}-page-${page.id}`,
        description: `GET ${page.path}: the public site's ${page.id} page`,
        // A page is a few reads: the smallest sizes that start quickly are enough.
        memorySize: 512,
        logRetention: props.logRetention,
        ...(network && { network }),
        ...(usesDocs && docsLayer && { layers: [docsLayer], environment: { [DOCS_DIR_ENV]: DOCS_DIR } }),
      });
      for (const [binding, access] of bound) fn.bind(binding, access);
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
