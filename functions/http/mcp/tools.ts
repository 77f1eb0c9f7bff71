/**
 * The MCP tools: each one is a route of the API run as it is over REST (same validation, errors and metering), with
 * a name and a description written for an agent. Adding a tool is one entry here.
 */
import type { Route } from '#http/route.ts';
import { caselawCitations } from '#http/routes/caselaw.ts';
import { lawFormat } from '#http/routes/formats.ts';
import { lawDiff, lawLookup, lawSearch, lawText, lawVersions } from '#http/routes/law.ts';

export interface McpTool {
  /** What an agent calls it: lower_snake_case, stable. */
  name: string;
  title: string;
  /** What the tool answers and what asof guarantees about the answer; the agent reads nothing else. */
  description: string;
  /** The route the tool runs, with the tool's arguments as the route's JSON body (it must accept POST). */
  route: Route;
}

/** What every section answer guarantees, said once and repeated in each tool that answers sections. */
const NEVER_GUESSES =
  'asof answers with the version in force on `asOf` (YYYY-MM-DD; default today, UTC) and never with the nearest one: ' +
  'when nothing under that citation was in force on the date, the tool fails with `no_edition_on_file` (the collection is ' +
  'carried, but not that section on that date; `error.didYouMean` lists the versions that exist, with their dates: ask the ' +
  'user or retry with one of those dates, never present them as the law on the asked date). `not_carried` means asof holds ' +
  'nothing of that corpus for that jurisdiction at all: do not retry with other dates. ';

const PROVENANCE =
  'Every answer carries its provenance (official source URL, retrieval time, content hash, version label) and validity ' +
  'dates: quote them with the text. ';

const CITATION_FORMS =
  '`citation` takes a key (`1-112b`, `22-404.05`, `frap-32`) or a printed form (`1 U.S.C. § 112b`, `D.C. Code § 22-404.05`, ' +
  '`Fed. R. App. P. 32(a)(7)`, `Tenn. Code Ann. § 1-3-101`); `jurisdiction` is `us`, `dc`, `tn`, `ms`, `nd`…; `corpus` ' +
  "(`statutes`, `rules`, …) is optional: the citation's form names its collection. ";

const ONE_UNIT = 'Billed 1 unit per call (a call refused for its input, or failed by the service, is not billed). ';

export const MCP_TOOLS: readonly McpTool[] = [
  {
    name: 'lookup_section',
    title: 'A section of the law as of a date',
    description:
      'The version of a statute or court-rule section in force on a date: full text, catchline, history note, status, ' +
      `validity interval (validFrom, validTo) and permalink. ${NEVER_GUESSES}${CITATION_FORMS}` +
      'A printed pinpoint (`32(a)(7)`) answers the whole section and says in `pinpoint` what was applied, with the ' +
      `subdivision's text when the version has it. ${PROVENANCE}${ONE_UNIT}`,
    route: lawLookup,
  },
  {
    name: 'section_text',
    title: 'The quotable text of a section as of a date',
    description:
      'The quotable parts only (catchline, body text, history note, status, version label, permalink) of the version in ' +
      `force on a date: smaller than lookup_section, without validity dates or the provenance object. ${NEVER_GUESSES}` +
      `${CITATION_FORMS}${ONE_UNIT}`,
    route: lawText,
  },
  {
    name: 'list_versions',
    title: 'Every version of a section on file',
    description:
      'The timeline of a section: every version on file, oldest first, each with validFrom, validTo, status, versionLabel, ' +
      'temporalBasis, contentHash and a permalink dated to its first day; the stretches where nothing is on file come as ' +
      'entries of kind `gap`, and a section that has ended says since when (`endedAt`). Use it to choose dates for ' +
      `lookup_section or diff_versions, not as the text itself. ${CITATION_FORMS}Fails with \`not_carried\` when the ` +
      `collection is not carried and \`no_edition_on_file\` when it holds no version of that section. ${ONE_UNIT}`,
    route: lawVersions,
  },
  {
    name: 'diff_versions',
    title: 'What changed in a section between two dates',
    description:
      'The versions of a section in force on `from` and on `to` (YYYY-MM-DD) and the difference between their texts: ' +
      '`identical: true` when the same version is in force on both; otherwise `operations` (a word-level edit script of ' +
      'keep/remove/add passages) and `unified` (a line-level unified diff). Nothing is ever guessed: when nothing was in ' +
      'force on one of the dates the tool fails with that date named in the message and `error.fields`, ' +
      `\`no_edition_on_file\` with \`didYouMean\` (call list_versions for the dates that exist). ${CITATION_FORMS}${ONE_UNIT}`,
    route: lawDiff,
  },
  {
    name: 'search_law',
    title: 'Search the law in force on a date',
    description:
      'Ranked full-text search over the sections in force on `asOf` (default today, UTC). The search is lexical: every term ' +
      'must match (AND), so give a few distinctive keywords (`strangulation`, `holiday mothers`), never a question or a ' +
      'sentence; fewer terms find more. At most 32 words. `jurisdiction`: one code, a comma list (`tn,ms`) or `all` ' +
      '(default); one named jurisdiction that holds nothing of the corpus fails with `not_carried`, while a list may ' +
      'answer an empty list. Snippets mark matched terms with <b>…</b>. Each hit carries its provenance; look a hit up ' +
      `with lookup_section before quoting it. ${ONE_UNIT}`,
    route: lawSearch,
  },
  {
    name: 'filing_format',
    title: 'Court filing formats in force on a date',
    description:
      'The filing-format records (typeface, type size, spacing, margins, paper, length limits, certificate of compliance) ' +
      'in force on `asOf` for a jurisdiction (`us` for federal courts), highest court first; filter by `court` ' +
      '(CourtListener ids: `scotus`, `ca9`, `cadc`, `nd`) or `level`. Each value is tied to the rule text it was read ' +
      'from (`limits[].quote`, `rules[]` with citation keys to check with lookup_section). A record is a reading of the ' +
      'rules, not the rules; `stale: true` says a cited rule changed since it was read. No record for the jurisdiction ' +
      `or filter fails with \`not_carried\`, whose message lists what exists. ${ONE_UNIT}`,
    route: lawFormat,
  },
  {
    name: 'resolve_citations',
    title: 'Resolve the case and statute citations in a text',
    description:
      'Finds the case citations in `text` (at most 64,000 characters), or takes a `citations` list (`410 U.S. 113`), and ' +
      'resolves each to CourtListener clusters in `results`: status 200 found, 300 ambiguous (up to eight candidates), 404 ' +
      'not found, 400 unknown reporter; `start_index`/`end_index` locate each in the text (code points). It says which ' +
      'case a citation names, never whether the case is still good law. Statute and court-rule citations (`28 U.S.C. § ' +
      '1291`, `D.C. Code § 22-404.05`, `Fed. R. App. P. 32(a)(7)`) come apart in `statutes`, each with the version in ' +
      'force on `asOf` (default today) as lookup_section answers it, or its error (`not_carried`, `no_edition_on_file`). ' +
      'Billed 1 unit per citation found, cases and statutes alike (0 for a text without any), reserved once the text is ' +
      'parsed; more than 250 citations fail with `too_many`. Give exactly one of `text` or `citations`.',
    route: caselawCitations,
  },
];

/** The tool of that name, or undefined. */
export const toolNamed = (tools: readonly McpTool[], name: string): McpTool | undefined => tools.find((t) => t.name === name);
