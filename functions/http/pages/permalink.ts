import { collectionOfKey } from '#law/collections.ts';
import { isCorpus, type SectionVersion, type VersionSummary } from '#law/model.ts';
import { DISCLAIMER, serviceNote } from '#law/notes.ts';
import { escapeHtml as h } from '#law/snippet.ts';
import { isCalendarDate, localDateOf } from '#shared/dates.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { textResponse } from '../respond.ts';
import type { Page } from './page.ts';

const STYLE = `body{font:16px/1.5 Georgia,serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}pre{white-space:pre-wrap;font:inherit}table{border-collapse:collapse;font-size:.9rem}
td,th{border-bottom:1px solid #ddd;padding:.25rem .5rem;text-align:left}.meta{color:#555;font-size:.9rem}
.current{font-weight:bold}.notice{background:#fff4e0;padding:.5rem 1rem}`;

const page = (status: number, title: string, body: string) =>
  textResponse(
    status,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<title>${h(title)} — asof</title><style>${STYLE}</style></head><body>${body}<p class="meta">${h(DISCLAIMER)}</p></body></html>`,
    'text/html; charset=utf-8',
    { 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" },
  );

const dateRange = (v: Pick<VersionSummary, 'validFrom' | 'validTo'>) =>
  `${localDateOf(v.validFrom)} – ${v.validTo.startsWith('9999') ? 'open' : localDateOf(v.validTo)}`;

/** Links are relative to the page (`?asOf=`), so they hold wherever the site is mounted (a domain's root, a stage path). */
function versionTable(versions: VersionSummary[], current: SectionVersion | null): string {
  const rows = versions
    .map((v) => {
      const isCurrent = current?.validFrom === v.validFrom;
      return `<tr${isCurrent ? ' class="current"' : ''}><td><a href="?asOf=${localDateOf(v.validFrom)}">${h(dateRange(v))}</a></td><td>${h(v.versionLabel)}</td><td>${h(v.status)}</td><td>${h(v.temporalBasis)}</td></tr>`;
    })
    .join('');
  return `<h2>Versions on file</h2><table><tr><th>valid</th><th>version</th><th>status</th><th>basis</th></tr>${rows}</table>`;
}

/** `{site_url}/law/<jurisdiction>/<corpus>/<key>`: the text in force (or at ?asOf=), its provenance and its versions. */
export const permalinkPage: Page = {
  id: 'permalink',
  path: '/law/{jurisdiction}/{corpus}/{key}',
  async render({ params, query, services }) {
    const { jurisdiction, corpus, key } = params as { jurisdiction: string; corpus: string; key: string };
    const collection = isCorpus(corpus) ? collectionOfKey(jurisdiction, corpus, key) : undefined;
    if (!isCorpus(corpus) || !collection || !services.versions) {
      return page(404, 'Not found', `<h1>Not found</h1><p>No section ${h(jurisdiction)}/${h(corpus)}/${h(key)} is carried.</p>`);
    }
    const asOfParam = query.get('asOf');
    if (asOfParam !== null && !isCalendarDate(asOfParam)) {
      return page(400, 'Bad date', `<h1>Bad date</h1><p>asOf must be a calendar date written YYYY-MM-DD.</p>`);
    }
    const asOf = asOfParam ?? services.now().toISOString().slice(0, 10);
    const ref = { jurisdiction, corpus, key };
    try {
      const [current, versions] = await Promise.all([services.versions.findInForce(ref, asOf), services.versions.listVersions(ref)]);
      const display = collection.display(key);
      if (!versions.length) return page(404, display, `<h1>${h(display)}</h1><p>No version of this section is on file.</p>`);
      const list = versionTable(versions, current);
      if (!current) {
        return page(
          404,
          display,
          `<h1>${h(display)}</h1><p class="notice">Nothing under this citation was in force on ${h(asOf)}. asof never shows a nearest version instead.</p>${list}`,
        );
      }
      const p = current.provenance;
      const note = serviceNote(current);
      return page(
        200,
        display,
        `<h1>${h(display)}. ${h(current.catchline)}</h1>` +
          `<p class="meta">In force ${h(dateRange(current))} (${h(current.temporalBasis)}) · status ${h(current.status)} · shown as of ${h(asOf)}</p>` +
          (note ? `<p class="notice">${h(note)}</p>` : '') +
          `<pre>${h(current.bodyText)}</pre>` +
          (current.historyNote ? `<p class="meta">${h(current.historyNote)}</p>` : '') +
          `<h2>Provenance</h2><table><tr><th>source</th><td><a href="${h(p.sourceUrl)}">${h(p.sourceUrl)}</a></td></tr>` +
          `<tr><th>source system</th><td>${h(p.sourceSystem)}</td></tr><tr><th>version</th><td>${h(p.versionLabel)}</td></tr>` +
          `<tr><th>retrieved</th><td>${h(p.retrievedAt)}</td></tr><tr><th>content hash</th><td><code>${h(p.contentHash)}</code></td></tr></table>` +
          list,
      );
    } catch (err) {
      if (err instanceof StoreUnavailableError)
        return page(503, 'Unavailable', '<h1>Temporarily unavailable</h1><p>The law store is unreachable; try again shortly.</p>');
      throw err;
    }
  },
};

export const PAGES: readonly Page[] = [permalinkPage];
