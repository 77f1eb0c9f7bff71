import { collectionOfKey } from '#law/collections.ts';
import { isCorpus, type SectionVersion, type VersionSummary } from '#law/model.ts';
import { serviceNote } from '#law/notes.ts';
import { escapeHtml as h } from '#law/snippet.ts';
import { isCalendarDate, localDateOf } from '#shared/dates.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { MAX_SHORT_PARAM_CHARS } from '../input-limits.ts';
import { htmlPage } from './html.ts';
import type { Page } from './page.ts';

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

/** No section is named by a NUL character or by hundreds of characters: such a path is not looked up, only not found. */
const isPlausible = (params: Record<string, string>) =>
  Object.values(params).every((v) => v.length <= MAX_SHORT_PARAM_CHARS && !v.includes('\u0000'));

/** `{site_url}/law/<jurisdiction>/<corpus>/<key>`: the text in force (or at ?asOf=), its provenance and its versions. */
export const permalinkPage: Page = {
  id: 'permalink',
  path: '/law/{jurisdiction}/{corpus}/{key}',
  async render({ params, query, services }) {
    const { jurisdiction, corpus, key } = params as { jurisdiction: string; corpus: string; key: string };
    const collection = isCorpus(corpus) && isPlausible(params) ? collectionOfKey(jurisdiction, corpus, key) : undefined;
    if (!isCorpus(corpus) || !collection || !services.versions) {
      return htmlPage(404, 'Not found', `<h1>Not found</h1><p>No section ${h(jurisdiction)}/${h(corpus)}/${h(key)} is carried.</p>`);
    }
    const asOfParam = query.get('asOf');
    if (asOfParam !== null && !isCalendarDate(asOfParam)) {
      return htmlPage(400, 'Bad date', `<h1>Bad date</h1><p>asOf must be a calendar date written YYYY-MM-DD.</p>`);
    }
    const asOf = asOfParam ?? services.now().toISOString().slice(0, 10);
    const ref = { jurisdiction, corpus, key };
    try {
      const [current, versions] = await Promise.all([services.versions.findInForce(ref, asOf), services.versions.listVersions(ref)]);
      const display = collection.display(key);
      if (!versions.length) return htmlPage(404, display, `<h1>${h(display)}</h1><p>No version of this section is on file.</p>`);
      const list = versionTable(versions, current);
      if (!current) {
        return htmlPage(
          404,
          display,
          `<h1>${h(display)}</h1><p class="notice">Nothing under this citation was in force on ${h(asOf)}. asof never shows a nearest version instead.</p>${list}`,
        );
      }
      const p = current.provenance;
      const note = serviceNote(current);
      return htmlPage(
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
        return htmlPage(503, 'Unavailable', '<h1>Temporarily unavailable</h1><p>The law store is unreachable; try again shortly.</p>');
      throw err;
    }
  },
};
