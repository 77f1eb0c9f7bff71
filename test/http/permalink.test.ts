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
    // The site's navigation leads back to the front page and the docs from the section's depth.
    expect(p.html).toContain('<nav aria-label="Site"><ul><li><a href="../../../">asof</a></li><li><a href="../../../docs">');
  });

  it('show the text in force at ?asOf=, and never a nearest version', async () => {
    const then = await page('/law/dc/statutes/22-404.05?asOf=2024-04-01');
    expect(then.status).toBe(200);
    expect(then.html).toContain('Strangulation');
    // In a gap between versions, nothing is shown as in force.
    const gap = await page('/law/us/rules/frap-32?asOf=2019-06-01');
    expect(gap.status).toBe(404);
    expect(gap.html).toMatch(/Nothing under this citation was in force on 2019-06-01/);
    expect(gap.html).not.toContain('Line Spacing');
    expect(gap.html).toContain('Versions on file');
  });

  it('show a section no longer in force (the deleted D.C. § 22-404.05) as its last version, saying since when', async () => {
    for (const path of ['/law/dc/statutes/22-404.05?asOf=2024-07-01', '/law/dc/statutes/22-404.05']) {
      const after = await page(path);
      // Still a 404: nothing is in force on the date; the page shows what was last, and says so first.
      expect(after.status).toBe(404);
      expect(after.html).toContain('<p class="notice">No longer in force since 2024-06-22.');
      expect(after.html).not.toContain('Nothing under this citation was in force');
      expect(after.html).toContain('Strangulation');
      expect(after.html).toContain('In force 2024-03-26 – 2024-06-22');
      expect(after.html).toContain('<tr class="current"><td><a href="?asOf=2024-03-26">');
    }
  });

  it('open the version an answer was about from its permalink', async () => {
    const lookup = await get('/law/lookup', { jurisdiction: 'dc', citation: '22-404.05', asOf: '2024-03-19' });
    const url = new URL(lookup.body.result.permalink);
    expect(url.search).toBe('?asOf=2024-03-18');
    const p = await page(url.pathname + url.search);
    expect(p.status).toBe(200);
    expect(p.html).toContain(lookup.body.result.provenance.contentHash);
    expect(p.html).toContain('shown as of 2024-03-18');
  });

  it('show the timeline with its gaps, each version linking to the page at its date', async () => {
    const { html } = await page('/law/us/rules/frap-32');
    expect(html).toContain('<tr class="gap"><td>2012-12-01 – 2024-12-01</td><td colspan="3">no version on file');
    expect(html).toContain('<a href="?asOf=2024-12-01">2024-12-01 – open</a>');
    expect(html).toContain('<a href="?asOf=2007-01-03">2007-01-03 – 2012-12-01</a>');
  });

  it('compare two versions with a form of two selects and no script, rendering the diff on the server', async () => {
    const { html } = await page('/law/dc/statutes/22-404.05?asOf=2024-04-01');
    expect(html).toContain('<form method="get" action="#compare">');
    expect(html).toContain('<input type="hidden" name="asOf" value="2024-04-01">');
    expect(html).toMatch(/<label for="compare-from">[^<]+<\/label> <select id="compare-from" name="from">/);
    expect(html).toContain('<option value="2024-03-20" selected>2024-03-20 – 2024-03-26 (2024-03-20)</option>');
    expect(html).not.toMatch(/<script/i);

    const compared = await page('/law/dc/statutes/22-404.05?asOf=2024-04-01&from=2024-03-18&to=2024-03-26#compare');
    expect(compared.status).toBe(200);
    expect(compared.html).toContain('<del>D.C. Official Code </del>');
    expect(compared.html).toContain('<del>05 </del><ins>05, 22-404.06 </ins>');
    expect(compared.html).toContain('<option value="2024-03-18" selected>');
    expect(compared.html).toMatch(/From the version of 2024-03-18 – 2024-03-20 \(2024-03-18\) to the version of 2024-03-26 – 2024-06-22/);

    const same = await page('/law/dc/statutes/22-404.05?from=2024-03-27&to=2024-04-01');
    expect(same.html).toContain('The same version is in force on both dates: nothing changed.');
    const none = await page('/law/dc/statutes/22-404.05?from=2024-01-01&to=2024-04-01');
    expect(none.html).toContain('Nothing under this citation was in force on 2024-01-01, so there is nothing to compare there.');
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
    const script = await page('/law/dc/statutes/22-404.05?from=%3Cscript%3Ealert(1)%3C/script%3E&to=2024-04-01');
    expect(script.status).toBe(400);
    expect(script.html).not.toContain('<script>');
    expect((await page('/law/dc/statutes/22-404.05?from=2024-03-18&to=2024-13-01')).status).toBe(400);
  });
});
