import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { fixture } from './client.ts';

/** The site's pages over real sockets: their headers, their redirects, and every input they show back escaped. */
const page = async (path: string) => {
  const res = await fetch(`${fixture().siteUrl}${path}`, { redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: await res.text() };
};

const HTML_PAGES = ['/', '/search', '/search?q=holiday', '/cite?citation=nothing', '/docs', '/law/us/statutes/1-112b'];

describe('the site: headers', () => {
  it.each(HTML_PAGES)('%s has a strict policy and the security headers', async (path) => {
    const p = await page(path);
    expect(p.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = p.headers.get('content-security-policy')!;
    const directives = Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0], d.slice(d.indexOf(' ') + 1)]));
    expect(directives['default-src']).toBe("'none'");
    expect(directives['frame-ancestors']).toBe("'none'");
    expect(directives['base-uri']).toBe("'none'");
    expect(directives['form-action']).toBe("'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
    // The one inline style is allowed by its hash, and it is the hash of the style the page carries.
    const style = /<style>([^<]*)<\/style>/.exec(p.html)![1]!;
    const { createHash } = await import('node:crypto');
    expect(directives['style-src']).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    // No inline script: every <script> has a src.
    expect(p.html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(p.headers.get('x-content-type-options')).toBe('nosniff');
    expect(p.headers.get('x-frame-options')).toBe('DENY');
    expect(p.headers.get('referrer-policy')).toBe('no-referrer');
    expect(p.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(p.html).toMatch(/^<!doctype html><html lang="en">/);
  });

  it('/favicon.ico is the site’s icon, an SVG cached for a week that runs and loads nothing, not the 404 page', async () => {
    const icon = await page('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('public, max-age=604800');
    expect(icon.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(icon.headers.get('x-content-type-options')).toBe('nosniff');
    expect(icon.html).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
    expect(icon.html).not.toMatch(/<script|\son\w+=|href=/i);
    // The pages let a browser that applies their policy to the icon load it, and nothing else from elsewhere.
    expect((await page('/')).headers.get('content-security-policy')).toContain("img-src 'self';");
  });

  it('indents a section’s subdivisions by their depth: FRAP 32 and D.C. Code § 28-3814', async () => {
    const rule = (await page('/law/us/rules/frap-32')).html;
    expect(rule).toContain('<p class="d0">(a) Form of a Brief.</p><p class="d1">(1) Reproduction.</p><p class="d2">(A) A brief');
    expect(rule).toMatch(/<p class="d3">\(i\) A principal brief is acceptable if it:<\/p><p class="d4">• contains/);
    expect(rule).toMatch(/<p class="d0">\(b\) Form of an Appendix\./);
    const dc = (await page('/law/dc/statutes/28-3814')).html;
    expect(dc).toContain('<p class="d0">(a)(1) This section applies');
    expect(dc).toContain('<p class="d1">(2) This section shall apply to public utilities');
    expect(dc).toMatch(/<p class="d0">\(b\) As used in this section, the term:<\/p><p class="d1">\(1\) &quot;Consumer&quot; means/);
  });

  it('the docs page allows scripts from the site only, the renderer its data: icons, and fetches from the site only', async () => {
    const csp = (await page('/docs')).headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toMatch(/style-src 'self' 'sha256-/);
  });
});

describe('the site: the docs files', () => {
  it('serves the renderer from its npm package and the OpenAPI document the API serves', async () => {
    const bundle = await page('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(bundle.html).toBe(await readFile(createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js'), 'utf8'));
    const css = await page('/docs/assets/swagger-ui.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const served = await (await fetch(`${fixture().url}/openapi.json`)).json();
    const beside = await page('/docs/assets/openapi.json');
    expect(JSON.parse(beside.html)).toEqual(served);
  });

  it('serves nothing else from the package or the disk', async () => {
    for (const file of ['package.json', '..%2F..%2Fpackage.json', '%2E%2E%2FREADME.md', 'swagger-ui-bundle.js.map', 'index.html']) {
      const p = await page(`/docs/assets/${file}`);
      expect(p.status, file).toBe(404);
      expect(p.html).not.toContain('"dependencies"');
    }
  });

  it('shows the README quick start', async () => {
    const p = await page('/docs');
    const readme = await readFile('README.md', 'utf8');
    expect(p.html).toContain('<h2 id="quick-start">Quick start</h2>');
    expect(readme).toContain('npx asof keys create --name me');
    expect(p.html).toContain('npx asof keys create --name me');
  });
});

describe('the site: the citation box', () => {
  it('redirects a printed citation to its section page, with the date', async () => {
    const p = await page(`/cite?citation=${encodeURIComponent('D.C. Code § 22-404.05')}&asOf=2024-04-01&jurisdiction=`);
    expect(p.status).toBe(303);
    expect(p.headers.get('location')).toBe('law/dc/statutes/22-404.05?asOf=2024-04-01');
    const followed = await page(`/${p.headers.get('location')}`);
    expect(followed.status).toBe(200);
    expect(followed.html).toContain('Strangulation');
  });

  it('reads a key with its jurisdiction, and a printed form of another jurisdiction by its own', async () => {
    expect((await page('/cite?citation=1-112b&jurisdiction=us')).headers.get('location')).toBe('law/us/statutes/1-112b');
    expect((await page(`/cite?citation=${encodeURIComponent('Fed. R. App. P. 32(a)(7)')}`)).headers.get('location')).toBe(
      'law/us/rules/frap-32',
    );
    expect((await page(`/cite?citation=${encodeURIComponent('Tenn. Code Ann. § 15-2-102')}&jurisdiction=dc`)).headers.get('location')).toBe(
      'law/tn/statutes/15-2-102',
    );
  });

  it('does not guess a bare key without its jurisdiction, and says why', async () => {
    const p = await page('/cite?citation=1-112b');
    expect(p.status).toBe(404);
    expect(p.html).toContain('choose its jurisdiction');
  });

  it('refuses no citation, a bad date and an implausible input with 400', async () => {
    expect((await page('/cite?citation=')).status).toBe(400);
    expect((await page('/cite?citation=1-112b&jurisdiction=us&asOf=2024-02-30')).status).toBe(400);
    expect((await page(`/cite?citation=${'9'.repeat(201)}`)).status).toBe(400);
    expect((await page('/cite?citation=1%00')).status).toBe(400);
  });
});

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;

describe('the site: every input shown back is escaped', () => {
  it('the citation box', async () => {
    const p = await page(`/cite?citation=${encodeURIComponent(HOSTILE)}&jurisdiction=${encodeURIComponent('x"><b>')}`);
    expect(p.status).toBe(404);
    expect(p.html).toContain('of jurisdiction “x&quot;&gt;&lt;b&gt;”');
    const q = await page(`/cite?citation=${encodeURIComponent(HOSTILE)}`);
    expect(q.status).toBe(404);
    expect(q.html).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#39;');
    for (const html of [p.html, q.html]) {
      expect(html).not.toContain('<script>alert');
      expect(html).not.toContain('<img src=x');
      expect(html).not.toContain('<b>');
    }
  });

  it('the search page: the query, the jurisdiction and the date in the form and the summary', async () => {
    const p = await page(
      `/search?q=${encodeURIComponent(HOSTILE)}&jurisdiction=${encodeURIComponent('dc"><i>')}&asOf=${encodeURIComponent('"><u>')}`,
    );
    expect(p.status).toBe(400);
    const q = await page(`/search?q=${encodeURIComponent(HOSTILE)}`);
    expect(q.status).toBe(200);
    expect(q.html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    for (const html of [p.html, q.html]) {
      expect(html).not.toContain('<script>alert');
      expect(html).not.toContain('<img src=x');
      expect(html).not.toMatch(/<[iu]>/);
    }
  });

  it('the search page: results link to their pages as of the date, snippets keep only their <b> marks', async () => {
    const p = await page('/search?q=strangulation&jurisdiction=dc&asOf=2024-04-01');
    expect(p.status).toBe(200);
    const hits = /<ol class="hits">(.*?)<\/ol>/s.exec(p.html)![1]!;
    const links = [...hits.matchAll(/<li><a href="([^"]+)">/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    expect(links.length).toBeLessThanOrEqual(10);
    for (const href of links) expect(href).toMatch(/^law\/dc\/statutes\/[^?"]+\?asOf=2024-04-01$/);
    const snippets = [...hits.matchAll(/<li><a [^>]+>[^<]*<\/a><p>(.*?)<\/p>/g)].map((m) => m[1]!);
    for (const s of snippets) expect(s.replace(/<\/?b>/g, '')).not.toMatch(/[<>]/);
  });

  it('the search page: a jurisdiction not carried is 404, a query over the limits 400, both said in the page', async () => {
    const none = await page('/search?q=holiday&jurisdiction=zz');
    expect(none.status).toBe(404);
    expect(none.html).toContain('Nothing of any corpus is carried for jurisdiction');
    const long = await page(`/search?q=${encodeURIComponent(Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '))}`);
    expect(long.status).toBe(400);
    expect(long.html).toContain('at most 32 words');
  });

  it('the section page: its path parameters', async () => {
    const p = await page(`/law/${encodeURIComponent('<i>x')}/statutes/${encodeURIComponent(HOSTILE)}`);
    expect(p.status).toBe(404);
    expect(p.html).not.toContain('<script>alert');
    expect(p.html).not.toContain('<i>x');
  });
});

describe('the site: the front page', () => {
  it('lists what coverage carries, with the numbers the API serves', async () => {
    const coverage = (await (await fetch(`${fixture().url}/law/coverage`)).json()) as {
      coverage: Array<{ name: string; sections: number; versions: number }>;
    };
    const p = await page('/');
    expect(p.status).toBe(200);
    for (const c of coverage.coverage) {
      expect(p.html).toContain(`<th scope="row">${c.name.replace(/&/g, '&amp;')}`);
      expect(p.html).toContain(`<td>${c.sections.toLocaleString('en-US')}</td><td>${c.versions.toLocaleString('en-US')}</td></tr>`);
    }
    expect(p.html).toContain('<a href="docs">');
    expect(p.html).toContain(`${fixture().url}/openapi.json`);
  });

  it('a POST, or a path with no page, is the site’s HTML 404', async () => {
    const post = await fetch(`${fixture().siteUrl}/`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect((await page('/nothing-here')).status).toBe(404);
  });
});
