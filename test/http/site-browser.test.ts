import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from './client.ts';

/**
 * The site's pages in a real headless browser (Debian's chromium, driven by playwright-core) over real sockets: they
 * render, their boxes work, no Content-Security-Policy violation is reported, axe-core finds no accessibility
 * violation, and a screenshot of each is kept under test-artifacts/. In CI (CI set, as .ci/run sets it) a missing
 * browser fails the file; elsewhere it is skipped with the reason.
 */
// ASOF_CHROMIUM, when set, is the one browser looked for.
const CANDIDATES = process.env.ASOF_CHROMIUM
  ? [process.env.ASOF_CHROMIUM]
  : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const executable = CANDIDATES.find((p) => existsSync(p));
const inCi = !!process.env.CI;
const ARTIFACTS = 'test-artifacts';

if (!executable && !inCi) {
  console.warn('site-browser.test.ts skipped: no chromium found (apt-get install chromium, or set ASOF_CHROMIUM to a Chrome binary).');
}

interface Watched {
  page: Page;
  violations: string[];
  errors: string[];
}

describe.skipIf(!executable && !inCi)('the site in a headless browser', () => {
  let browser: Browser;
  let axeSource: string;
  const site = () => fixture().siteUrl;

  beforeAll(async () => {
    if (!executable) throw new Error(`CI runs the browser tests, and no chromium is installed (looked at ${CANDIDATES.join(', ')}).`);
    browser = await chromium.launch({ executablePath: executable, args: ['--no-sandbox'] });
    axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await mkdir(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh page that records every CSP violation (event and console) and every console error. */
  async function open(path: string): Promise<Watched> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const watched: Watched = { page, violations: [], errors: [] };
    await page.exposeFunction('__reportViolation', (v: string) => watched.violations.push(v));
    await page.addInitScript({
      content:
        "document.addEventListener('securitypolicyviolation', (e) => window.__reportViolation(e.violatedDirective + ' ' + e.blockedURI));",
    });
    page.on('console', (m) => {
      if (m.type() === 'error') watched.errors.push(m.text());
    });
    page.on('pageerror', (e) => watched.errors.push(e.message));
    const res = await page.goto(`${site()}${path}`, { waitUntil: 'load' });
    expect(res?.status(), path).toBeLessThan(400);
    return watched;
  }

  /** axe-core's run over the page, with the WCAG 2.1 A/AA rules and best practices: the violations, by rule. */
  async function axeViolations(page: Page): Promise<string[]> {
    await page.evaluate(axeSource);
    const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
    const result = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(tags)} } })`)) as {
      violations: Array<{ id: string; nodes: Array<{ target: string[] }> }>;
    };
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  async function finish(w: Watched, name: string) {
    await w.page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
    expect(await axeViolations(w.page), `${name}: accessibility`).toEqual([]);
    expect(w.violations, `${name}: CSP violations`).toEqual([]);
    expect(
      w.errors.filter((e) => /Content.Security.Policy|Refused to/i.test(e)),
      `${name}: console`,
    ).toEqual([]);
    await w.page.context().close();
  }

  it('the front page shows what coverage carries, and its citation box opens the section as of the date', async () => {
    const coverage = (await (await fetch(`${fixture().url}/law/coverage`)).json()) as {
      coverage: Array<{ name: string; sections: number }>;
    };
    const w = await open('/');
    const { page } = w;
    expect(await page.locator('h1').innerText()).toContain('asof');
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    const rows = await page.locator('table tbody th[scope=row]').allInnerTexts();
    expect(rows.map((r) => r.split('\n')[0]!.trim())).toEqual(coverage.coverage.map((c) => c.name));
    await finish(w, 'home');

    const cite = await open('/');
    await cite.page.getByRole('searchbox', { name: 'Citation' }).fill('D.C. Code § 22-404.05');
    await cite.page.locator('#cite-asof').fill('2024-04-01');
    await Promise.all([
      cite.page.waitForURL(/\/law\/dc\/statutes\/22-404\.05\?asOf=2024-04-01$/),
      cite.page.getByRole('button', { name: 'Open the section' }).click(),
    ]);
    expect(await cite.page.locator('h1').innerText()).toContain('D.C. Code § 22-404.05');
    expect(await cite.page.content()).toContain('Strangulation');
    await cite.page.context().close();
  });

  it('the search box lists sections in force on the date, each a link to its page', async () => {
    const w = await open('/');
    await w.page.getByLabel('Keywords').fill('strangulation');
    await w.page.locator('#search-jurisdiction').selectOption('dc');
    await w.page.locator('#search-asof').fill('2024-04-01');
    await Promise.all([w.page.waitForURL(/\/search\?/), w.page.getByRole('button', { name: 'Search' }).click()]);
    const links = w.page.locator('ol.hits li > a');
    expect(await links.count()).toBeGreaterThan(0);
    expect(await links.count()).toBeLessThanOrEqual(10);
    expect(await links.allInnerTexts()).toContainEqual(expect.stringContaining('22-404.05'));
    // The form shows back what was searched.
    expect(await w.page.getByLabel('Keywords').inputValue()).toBe('strangulation');
    await finish(w, 'search');

    const s = await open('/search?q=strangulation&jurisdiction=dc&asOf=2024-04-01');
    await Promise.all([s.page.waitForURL(/\/law\/dc\/statutes\//), s.page.locator('ol.hits li > a').first().click()]);
    expect(s.page.url()).toContain('asOf=2024-04-01');
    expect(await s.page.locator('h1').innerText()).toMatch(/D\.C\. Code §/);
    await s.page.context().close();
  });

  it('the docs page renders every operation of the served OpenAPI document, and the quick start', async () => {
    const spec = (await (await fetch(`${fixture().url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const wanted = Object.entries(spec.paths)
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => ['get', 'post'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      .sort();
    const w = await open('/docs');
    const { page } = w;
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
    const shown = await page
      .locator('.opblock-summary')
      .evaluateAll((els) =>
        els.map(
          (el) =>
            `${el.querySelector('.opblock-summary-method')?.textContent?.trim()} ${el.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
    expect(wanted.length).toBeGreaterThan(10);
    expect([...new Set(shown)].sort()).toEqual(wanted);
    expect(await page.getByRole('heading', { name: 'Quick start', exact: true }).count()).toBe(1);
    expect(await page.locator('#quick-start ~ pre code').first().innerText()).toContain('npm start');
    await finish(w, 'docs');
  });

  it('a section page renders its text and versions', async () => {
    const w = await open('/law/us/statutes/1-112b?asOf=2019-03-01');
    expect(await w.page.locator('h1').innerText()).toContain('1 U.S.C. § 112b');
    expect(await w.page.getByRole('heading', { name: 'Versions on file' }).count()).toBe(1);
    await finish(w, 'section');
  });
});
