/**
 * The state codes UniCourt converts for Public.Resource.Org (github.com/UniCourt/cic-code-<st>), one configuration per
 * state: adding a state is one more entry here and its citation grammar in functions/law/state-codes.ts.
 *
 * Layout (the repositories' own): `transforms/<st>/oc<st>/r<NN>/gov.<st>.<code>.title.<TT>.html`, one file per title
 * and release. A file states its release and date in `<p class="transformation">` ("Release 76 of the Official Code
 * of Tennessee Annotated released 2021.05.21. …"). Sections are `<h3 id="t01c03s1-3-101">1-3-101. Repeals not
 * retroactive.</h3>` followed by their text (`<p>`, `<ol>`), the history line, and the publisher's annotations.
 */

export interface StateCodeFormat {
  /** Two-letter state code, lowercase: the jurisdiction, and the `<st>` of the layout. */
  state: string;
  /** Collection id (functions/law/state-codes.ts). */
  collection: string;
  /** The `<code>` of the file names: `tca` in `gov.tn.tca.title.01.html`. */
  code: string;
  /** Where the publisher keeps the files, and the commit read. */
  repository: string;
  commit: string;
  /** Each release the repository holds and the date its files state (checked against the file on reading). */
  releases: readonly { release: number; date: string }[];
  /** The titles fetched when none are named (`asof fetch state-code --titles`): those bundled in data/states. */
  defaultTitles: readonly string[];
  /**
   * The paragraph that is a section's history line ("Acts 1953, ch. 80, § 1; …", "HISTORY: Laws, 1995, …"); its
   * first capture, when there is one, is a label left out of the history note.
   */
  historyLine: RegExp;
  /** After the history line comes nothing of the statute: every later block is an annotation. */
  historyEndsText: boolean;
  /** A paragraph that opens the publisher's annotations ("Compiler's Notes. …", "Cross-References. …"). */
  annotation: RegExp;
}

const tn: StateCodeFormat = {
  state: 'tn',
  collection: 'tn-code',
  code: 'tca',
  repository: 'UniCourt/cic-code-tn',
  commit: '507a4fb0e463c55a81147a3deba042aa18f562c1',
  releases: [
    { release: 72, date: '2020-09-01' },
    { release: 73, date: '2020-09-30' },
    { release: 74, date: '2020-12-22' },
    { release: 75, date: '2021-02-04' },
    { release: 76, date: '2021-05-21' },
  ],
  defaultTitles: ['01', '15', '22', '23', '31'],
  // Tennessee prints the history line bare: the acts, the old codes, the original T.C.A. numbering.
  historyLine: /^(?:Acts \d{4}|Private Acts \d{4}|Pub\. Acts|Code 18\d\d|Code 19\d\d|Shan\.|Mil\. & V\.|C\. Supp\.|T\.C\.A\.)/,
  historyEndsText: true,
  annotation:
    /^(?:Textbooks|Compiler'?s Notes|Law Reviews|Effective Dates|Cross-References|Code Commission Notes|Amendments|Attorney General Opinions|Collateral References|Comparative Legislation|Rule Reference|Cited|Section to Section References|Repealed Law|Decisions Under Prior Law|Transfer|Severability|Applicability|Official Comments?|Editor'?s Notes)\s*[.:]/,
};

const ms: StateCodeFormat = {
  state: 'ms',
  collection: 'ms-code',
  code: 'code',
  repository: 'UniCourt/cic-code-ms',
  commit: 'efd509d2fe257a0e38108c0795103fc958bc8734',
  releases: [
    { release: 72, date: '2018-12-13' },
    { release: 73, date: '2019-03-26' },
    { release: 74, date: '2019-07-08' },
    { release: 75, date: '2019-10-08' },
    { release: 76, date: '2019-12-13' },
    { release: 77, date: '2020-04-02' },
    { release: 78, date: '2020-07-08' },
  ],
  defaultTitles: ['01', '03', '05', '87', '95'],
  // "HISTORY: Laws, …"; a repealed section's old sources follow its repeal note, bracketed or bare
  // ("[Codes, 1942, …]", "§5-3-1. [Codes, …]", "Codes, 1892, § 198; …").
  historyLine:
    /^(?:(HISTORY:)|\[|§§?\s?\d[\d\-–.]*(?:\s*(?:through|to)\s*§?\s?\d[\d\-–.]*)?\.\s*\[?(?:Codes|Laws|En Laws)|Codes, \d|Laws, \d)/,
  historyEndsText: false,
  // Mississippi's annotations are headed divisions (`<h4>`), which end the text by themselves.
  annotation: /^(?!)/,
};

export const STATE_CODE_FORMATS: Readonly<Record<string, StateCodeFormat>> = { tn, ms };

export class UnknownStateError extends Error {}

export function stateCodeFormat(state: string): StateCodeFormat {
  const format = Object.hasOwn(STATE_CODE_FORMATS, state) ? STATE_CODE_FORMATS[state] : undefined;
  if (!format) throw new UnknownStateError(`no state code '${state}' (known: ${Object.keys(STATE_CODE_FORMATS).join(', ')})`);
  return format;
}

/** `transforms/tn/octn/r72/gov.tn.tca.title.01.html` */
export const titleFilePath = (f: StateCodeFormat, release: number, title: string): string =>
  `transforms/${f.state}/oc${f.state}/r${release}/gov.${f.state}.${f.code}.title.${title}.html`;

/** The publisher's file at the commit read: the `sourceUrl` of the versions an edition starts. */
export const publisherFileUrl = (f: StateCodeFormat, release: number, title: string): string =>
  `https://github.com/${f.repository}/blob/${f.commit}/${titleFilePath(f, release, title)}`;

/** Where `asof fetch state-code` reads from when no `--source` is given: the raw files at the commit read. */
export const publisherSource = (f: StateCodeFormat): string => `https://raw.githubusercontent.com/${f.repository}/${f.commit}`;

/** A title file's release and title from its path, when it is named as the publisher names it. */
export function titleFileOf(f: StateCodeFormat, path: string): { release: number | null; title: string } | null {
  const name = new RegExp(String.raw`(?:^|[\\/])(?:r(\d+)[\\/])?gov\.${f.state}\.${f.code}\.title\.(\d+[a-z]?)\.html$`, 'i').exec(path);
  if (!name) return null;
  return { release: name[1] ? Number(name[1]) : null, title: name[2]!.toLowerCase() };
}
