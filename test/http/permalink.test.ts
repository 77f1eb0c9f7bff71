import { describe, expect, it } from 'vitest';
import { fixture, get } from './client.ts';

const page = async (path: string) => {
  const res = await fetch(`${fixture().siteUrl}${path}`);
  return { status: res.status, type: res.headers.get('content-type'), html: await res.text() };
};

describe('permalink pages', () => {
  it('resolve a lookup permalink to a readable page: text in force, provenance, versions', async () => {
    const lookup = await get('/law/lookup', { jurisdiction: 'us', citation: '1-112b' });
    const url = new URL(lookup.body.result.permalink);
    const p = await page(url.pathname);
    expect(p.status).toBe(200);
    expect(p.type).toBe('text/html; charset=utf-8');
    expect(p.html).toContain('1 U.S.C. § 112b');
    expect(p.html).toContain('United States international agreements');
    expect(p.html).toContain(lookup.body.result.provenance.contentHash);
    expect(p.html).toContain('113-31');
    expect(p.html).toContain('117-80');
    expect(p.html).toContain('Versions on file');
  });

  it('show the text in force at ?asOf=, and never a nearest version', async () => {
    const then = await page('/law/dc/statutes/22-404.05?asOf=2024-04-01');
    expect(then.status).toBe(200);
    expect(then.html).toContain('Strangulation');
    const after = await page('/law/dc/statutes/22-404.05?asOf=2024-07-01');
    expect(after.status).toBe(404);
    expect(after.html).toMatch(/Nothing under this citation was in force on 2024-07-01/);
    expect(after.html).toContain('Versions on file');
  });

  it('link each version relative to the page, so the links hold wherever the site is mounted', async () => {
    const path = '/law/dc/statutes/22-404.05';
    const { html } = await page(path);
    const hrefs = [...html.matchAll(/<a href="(\?asOf=[^"]+)"/g)].map((m) => m[1]!);
    expect(hrefs.length).toBeGreaterThan(1);
    const followed = await page(new URL(hrefs[0]!, `http://site${path}`).pathname + hrefs[0]!);
    expect(followed.status).toBe(200);
    expect(followed.html).toContain(`shown as of ${hrefs[0]!.slice('?asOf='.length)}`);
  });

  it('escape what they show and refuse bad input', async () => {
    expect((await page('/law/dc/statutes/%3Cscript%3E')).html).not.toContain('<script>');
    expect((await page('/law/us/nonsense/1-1')).status).toBe(404);
    expect((await page('/law/us/statutes/1-1?asOf=2019-02-30')).status).toBe(400);
  });
});
