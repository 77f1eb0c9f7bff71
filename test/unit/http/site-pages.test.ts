import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { SITE_READS_PER_MINUTE } from '#accounts/edge-limit.ts';
import { citePage } from '#http/pages/cite.ts';
import { DOCS_CSP, markdownHtml, quickStartOf } from '#http/pages/docs.ts';
import { homePage } from '#http/pages/home.ts';
import { contentSecurityPolicy, PAGE_HEADERS, pageHtml, STYLE_HASH } from '#http/pages/html.ts';
import type { PageServices } from '#http/pages/page.ts';
import { searchPage } from '#http/pages/search.ts';
import { pageLambda } from '#lambda/page-entry.ts';

const now = () => new Date('2026-11-24T12:00:00Z');
/** No stores at all: what a page does before it reads one, or when its deployment gives none. */
const bare: PageServices = { versions: null, now };
const render = (page: typeof citePage, query: Record<string, string>, client?: string) =>
  page.render({ params: {}, query: new URLSearchParams(query), services: bare, ...(client && { client }) });

describe('the pages’ policy', () => {
  it('builds every policy from default-src none, the shell style by hash, no unsafe source', () => {
    expect(contentSecurityPolicy()).toBe(
      `default-src 'none'; style-src ${STYLE_HASH}; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    );
    expect(STYLE_HASH).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$/);
    for (const csp of [PAGE_HEADERS['content-security-policy'], DOCS_CSP]) expect(csp).not.toMatch(/unsafe|\*|https?:/);
    expect(DOCS_CSP).toContain("script-src 'self'");
  });

  it('escapes a page title, and keeps the body in one main landmark under a lang', () => {
    const html = pageHtml('<script>x</script>', '<p>body</p>');
    expect(html).toContain('<title>&lt;script&gt;x&lt;/script&gt; — asof</title>');
    expect(html).toMatch(/^<!doctype html><html lang="en">/);
    expect(html).toContain('<main><p>body</p></main>');
  });
});

describe('the citation box (/cite)', () => {
  it('answers a printed citation with a 303 to its page, relative, with the date', async () => {
    const res = await render(citePage, { citation: 'Fed. R. App. P. 32(a)(7)', asOf: '2010-06-01' });
    expect(res.statusCode).toBe(303);
    expect(res.headers).toMatchObject({ location: 'law/us/rules/frap-32?asOf=2010-06-01', ...PAGE_HEADERS });
  });

  it('encodes the key in the location', async () => {
    const res = await render(citePage, { citation: 'D.C. Code § 22-404.05' });
    expect(res.headers?.location).toBe('law/dc/statutes/22-404.05');
  });

  it('refuses what it cannot read, with the reason and the input escaped', async () => {
    const res = await render(citePage, { citation: '<svg onload=x>' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('&lt;svg onload=x&gt;');
    expect(res.body).not.toContain('<svg');
    expect((await render(citePage, { citation: '1-112b', asOf: '2024-13-01', jurisdiction: 'us' })).statusCode).toBe(400);
  });
});

describe('the search page (/search)', () => {
  it('shows only the form without a query, and reads no index for it', async () => {
    const res = await render(searchPage, {});
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<label for="search-q">Keywords</label>');
  });

  it(`limits each address to ${SITE_READS_PER_MINUTE} searches a minute, with Retry-After, and no other address`, async () => {
    const answers = [];
    for (let i = 0; i < SITE_READS_PER_MINUTE; i++) answers.push((await render(searchPage, { q: 'holiday' }, '203.0.113.7')).statusCode);
    // Within the limit the search runs (here: 503, no index is given); past it, 429 before any index is asked.
    expect(answers).toEqual(Array(SITE_READS_PER_MINUTE).fill(503));
    const over = await render(searchPage, { q: 'holiday' }, '203.0.113.7');
    expect(over.statusCode).toBe(429);
    expect(over.headers).toMatchObject({ 'retry-after': '60', ...PAGE_HEADERS });
    expect(over.body).toContain('<h1>Too many requests</h1>');
    expect((await render(searchPage, { q: 'holiday' }, '203.0.113.8')).statusCode).toBe(503);
  });
});

describe('the front page (/)', () => {
  it('says what is carried cannot be read, rather than failing, when coverage is not given', async () => {
    const res = await homePage.render({ params: {}, query: new URLSearchParams(), services: bare });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('What is carried cannot be read just now');
  });
});

describe('the docs page’s quick start', () => {
  it('is the README section up to the next one', () => {
    const readme = '# asof\n\nintro\n\n## Quick start\n\n```sh\nnpm start\n```\n\n### A key\n\ntext\n\n## The API\n\nmore';
    expect(quickStartOf(readme)).toBe('## Quick start\n\n```sh\nnpm start\n```\n\n### A key\n\ntext\n');
    expect(() => quickStartOf('# none')).toThrow(/Quick start/);
  });

  it('renders Markdown, and shows raw HTML in it as text', () => {
    const html = markdownHtml('## Quick start\n\n`a<b>` and <script>alert(1)</script>\n\n<img src=x onerror=y>\n');
    expect(html).toContain('<h2>Quick start</h2>');
    expect(html).toContain('<code>a&lt;b&gt;</code>');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
  });
});

describe('a page function at the site’s root', () => {
  const event = (path: string) =>
    ({
      httpMethod: 'GET',
      path: '/',
      resource: '/',
      pathParameters: null,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      headers: {},
      requestContext: { path, identity: { sourceIp: '203.0.113.9' } },
    }) as unknown as APIGatewayProxyEvent;
  const context = { awsRequestId: 'r', functionName: 'f', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

  it('adds the slash to the stage path (…/site), so that the page’s relative links stay in the stage', async () => {
    const res = await pageLambda(homePage, bare)(event('/site'), context);
    expect(res.statusCode).toBe(308);
    expect(res.headers?.location).toBe('/site/');
    const ok = await pageLambda(homePage, bare)(event('/site/'), context);
    expect(ok.statusCode).toBe(200);
  });
});
