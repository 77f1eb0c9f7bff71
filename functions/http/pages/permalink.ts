import { collectionOfKey } from '#law/collections.ts';
import { diffTextsPaced } from '#law/diff.ts';
import { isCorpus, type SectionRef, type SectionVersion, type VersionSummary } from '#law/model.ts';
import { serviceNote } from '#law/notes.ts';
import { outlineDepths } from '#law/outline.ts';
import { escapeHtml as h } from '#law/snippet.ts';
import { withGaps } from '#law/timeline.ts';
import { isCalendarDate, localDateOf } from '#shared/dates.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { MAX_SHORT_PARAM_CHARS } from '../input-limits.ts';
import { htmlPage, siteNav } from './html.ts';
import type { Page, PageServices } from './page.ts';
import { overSiteBudget } from './page-budget.ts';

/** The site's navigation from a section page (`law/<jurisdiction>/<corpus>/<key>`): three levels up. */
const SECTION_NAV = siteNav('../../../');
const sectionPage = (status: number, title: string, body: string) => htmlPage(status, title, body, { nav: SECTION_NAV });

const dateRange = (v: Pick<VersionSummary, 'validFrom' | 'validTo'>) =>
  `${localDateOf(v.validFrom)} – ${v.validTo.startsWith('9999') ? 'open' : localDateOf(v.validTo)}`;

/** Links are relative to the page (`?asOf=`), so they hold wherever the site is mounted (a domain's root, a stage path). */
function versionTable(versions: readonly VersionSummary[], current: SectionVersion | null): string {
  const rows = withGaps(versions)
    .map((e) => {
      if (e.kind === 'gap') {
        return `<tr class="gap"><td>${h(dateRange(e))}</td><td colspan="3">no version on file: nothing is shown as in force</td></tr>`;
      }
      const v = e.version;
      const isCurrent = current?.validFrom === v.validFrom;
      return `<tr${isCurrent ? ' class="current"' : ''}><td><a href="?asOf=${localDateOf(v.validFrom)}">${h(dateRange(v))}</a></td><td>${h(v.versionLabel)}</td><td>${h(v.status)}</td><td>${h(v.temporalBasis)}</td></tr>`;
    })
    .join('');
  return `<h2>Versions on file</h2><table><tr><th>valid</th><th>version</th><th>status</th><th>basis</th></tr>${rows}</table>`;
}

const optionLabel = (v: VersionSummary) => `${dateRange(v)} (${v.versionLabel})`;

/** Two selects and a button: a GET of this page with `from` and `to`, no script. */
function compareForm(versions: readonly VersionSummary[], chosen: { from: string; to: string } | null, asOf: string | null): string {
  if (versions.length < 2) return '';
  const froms = versions.map((v) => localDateOf(v.validFrom));
  const pick = (name: 'from' | 'to', fallback: string) => {
    const selected = chosen?.[name] ?? fallback;
    const options = versions
      .map((v, i) => `<option value="${froms[i]}"${froms[i] === selected ? ' selected' : ''}>${h(optionLabel(v))}</option>`)
      .join('');
    return `<label for="compare-${name}">${name === 'from' ? 'Compare the version of' : 'with the version of'}</label> <select id="compare-${name}" name="${name}">${options}</select>`;
  };
  return (
    `<h2 id="compare">Compare two versions</h2><form method="get" action="#compare">` +
    (asOf === null ? '' : `<input type="hidden" name="asOf" value="${h(asOf)}">`) +
    `<p>${pick('from', froms.at(-2)!)} ${pick('to', froms.at(-1)!)} <button type="submit">Compare</button></p></form>`
  );
}

/** The difference between the versions in force on `from` and on `to`, rendered: removed text struck, added text underlined. */
async function renderedDiff(versions: NonNullable<PageServices['versions']>, ref: SectionRef, from: string, to: string): Promise<string> {
  const [older, newer] = await Promise.all([versions.findInForce(ref, from), versions.findInForce(ref, to)]);
  const missing = [older ? null : from, newer ? null : to].filter((d) => d !== null);
  if (!older || !newer) {
    return `<p class="notice">Nothing under this citation was in force on ${h(missing.join(' or '))}, so there is nothing to compare there.</p>`;
  }
  const heading = `<p class="meta">From the version of ${h(dateRange(older))} (${h(older.provenance.versionLabel)}) to the version of ${h(dateRange(newer))} (${h(newer.provenance.versionLabel)}).</p>`;
  if (older.validFrom === newer.validFrom)
    return `${heading}<p class="notice">The same version is in force on both dates: nothing changed.</p>`;
  const d = await diffTextsPaced(older.bodyText, newer.bodyText);
  const body = d.operations
    .map(({ op, text }) => (op === 'keep' ? h(text) : op === 'remove' ? `<del>${h(text)}</del>` : `<ins>${h(text)}</ins>`))
    .join('');
  const summary = `${d.words.removed.toLocaleString('en-US')} words removed, ${d.words.added.toLocaleString('en-US')} added, ${d.words.kept.toLocaleString('en-US')} kept.`;
  const coarse = d.wordLevel
    ? ''
    : ' Some passages changed too much to compare word by word: they are shown as whole lines removed and added.';
  return `${heading}<p class="meta">${h(summary + coarse)}</p><pre class="diff">${body}</pre>`;
}

/** The deepest indent the pages' style has (html.ts, `.text .d1`…): deeper lines are shown at it. */
const MAX_DEPTH = 6;

/** A version's text, a paragraph a line, each indented by its depth in the section's outline (law/outline.ts). */
export function sectionText(text: string): string {
  const lines = text.split('\n');
  const depths = outlineDepths(lines);
  const paragraphs = lines.map((line, i) => (line.trim() === '' ? '' : `<p class="d${Math.min(depths[i]!, MAX_DEPTH)}">${h(line)}</p>`));
  return `<div class="text">${paragraphs.join('')}</div>`;
}

/** No section is named by a NUL character or by hundreds of characters: such a path is not looked up, only not found. */
const isPlausible = (params: Record<string, string>) =>
  Object.values(params).every((v) => v.length <= MAX_SHORT_PARAM_CHARS && !v.includes('\u0000'));

/** `{site_url}/law/<jurisdiction>/<corpus>/<key>`: the text in force (or at ?asOf=), its provenance and its versions. */
export const permalinkPage: Page = {
  id: 'permalink',
  path: '/law/{jurisdiction}/{corpus}/{key}',
  async render(request) {
    const { params, query, services } = request;
    const { jurisdiction, corpus, key } = params as { jurisdiction: string; corpus: string; key: string };
    const collection = isCorpus(corpus) && isPlausible(params) ? collectionOfKey(jurisdiction, corpus, key) : undefined;
    if (!isCorpus(corpus) || !collection || !services.versions) {
      return sectionPage(404, 'Not found', `<h1>Not found</h1><p>No section ${h(jurisdiction)}/${h(corpus)}/${h(key)} is carried.</p>`);
    }
    const asOfParam = query.get('asOf');
    const compare = { from: query.get('from'), to: query.get('to') };
    const badDate = [asOfParam, compare.from, compare.to].some((d) => d !== null && !isCalendarDate(d));
    if (badDate) {
      return sectionPage(400, 'Bad date', `<h1>Bad date</h1><p>asOf, from and to must be calendar dates written YYYY-MM-DD.</p>`);
    }
    // Counted once it would read the store: a path or a date refused above costs nothing and is not counted.
    const over = overSiteBudget(request, SECTION_NAV);
    if (over) return over;
    const asOf = asOfParam ?? services.now().toISOString().slice(0, 10);
    const ref = { jurisdiction, corpus, key };
    try {
      const store = services.versions;
      const [found, versions] = await Promise.all([store.findInForce(ref, asOf), store.listVersions(ref)]);
      const display = collection.display(key);
      if (!versions.length) return sectionPage(404, display, `<h1>${h(display)}</h1><p>No version of this section is on file.</p>`);
      const last = versions.at(-1)!;
      // A section no longer in force (deleted, or not shown since) shows its last version, saying since when.
      const ended = !found && !last.validTo.startsWith('9999') && asOf >= localDateOf(last.validTo);
      const current = found ?? (ended ? await store.getVersion(ref, last.validFrom) : null);
      const chosen = compare.from !== null && compare.to !== null ? { from: compare.from, to: compare.to } : null;
      const comparison = chosen ? await renderedDiff(store, ref, chosen.from, chosen.to) : '';
      const list = versionTable(versions, current) + compareForm(versions, chosen, asOfParam) + comparison;
      if (!current) {
        return sectionPage(
          404,
          display,
          `<h1>${h(display)}</h1><p class="notice">Nothing under this citation was in force on ${h(asOf)}. asof never shows a nearest version instead.</p>${list}`,
        );
      }
      const p = current.provenance;
      const note = serviceNote(current);
      const notice = found
        ? ''
        : `<p class="notice">No longer in force since ${h(localDateOf(last.validTo))}. This is its last version on file; nothing under this citation was in force on ${h(asOf)}.</p>`;
      return sectionPage(
        found ? 200 : 404,
        display,
        `<h1>${h(display)}. ${h(current.catchline)}</h1>` +
          notice +
          `<p class="meta">In force ${h(dateRange(current))} (${h(current.temporalBasis)}) · status ${h(current.status)} · shown as of ${h(asOf)}</p>` +
          (note ? `<p class="notice">${h(note)}</p>` : '') +
          sectionText(current.bodyText) +
          (current.historyNote ? `<p class="meta">${h(current.historyNote)}</p>` : '') +
          `<h2>Provenance</h2><table><tr><th>source</th><td><a href="${h(p.sourceUrl)}">${h(p.sourceUrl)}</a></td></tr>` +
          `<tr><th>source system</th><td>${h(p.sourceSystem)}</td></tr><tr><th>version</th><td>${h(p.versionLabel)}</td></tr>` +
          `<tr><th>retrieved</th><td>${h(p.retrievedAt)}</td></tr><tr><th>content hash</th><td><code>${h(p.contentHash)}</code></td></tr></table>` +
          list,
      );
    } catch (err) {
      if (err instanceof StoreUnavailableError)
        return sectionPage(503, 'Unavailable', '<h1>Temporarily unavailable</h1><p>The law store is unreachable; try again shortly.</p>');
      throw err;
    }
  },
};
