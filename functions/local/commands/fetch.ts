/**
 * `asof fetch uscode|state-code|dc-code`: a code downloaded from its publisher (or a mirror, a clone), kept in the
 * data dir's sources/ and ingested, as an admin job. The options are checked here, so a mistake is a usage error
 * before anything is requested; a re-run fetches and writes only what is missing.
 */

import { join } from 'node:path';
import type { FetchDcCodeRequest } from '#ingest/dc-git/fetch-dc-code.ts';
import { DC_COUNCIL_REMOTE, isGitUrl } from '#ingest/dc-git/remote.ts';
import type { FetchUscodeRequest, FetchUscodeResult } from '#ingest/olrc/fetch-uscode.ts';
import { parseReleasePointId, ReleasePointError } from '#ingest/olrc/release-points.ts';
import { TitleCodeError, titleCode } from '#ingest/olrc/titles.ts';
import { normalizeSource, OLRC_SOURCE, SourceError } from '#ingest/olrc/urls.ts';
import type { FetchStateCodeRequest, FetchStateCodeResult } from '#ingest/state-codes/fetch.ts';
import { STATE_CODE_FORMATS } from '#ingest/state-codes/formats.ts';
import { type Command, type Flags, UsageError } from './command.ts';
import { abs, DATA_DIR, dataDirOf, JSON_OUTPUT } from './flags.ts';
import { runJob } from './run-job.ts';

const OPTIONS = {
  'release-point': { type: 'string' },
  latest: { type: 'boolean' },
  since: { type: 'string' },
  titles: { type: 'string' },
  source: { type: 'string' },
  releases: { type: 'string' },
  repo: { type: 'string' },
  ...JSON_OUTPUT,
  ...DATA_DIR,
} as const;

type FetchFlags = Flags<typeof OPTIONS>;

export const fetchCommand: Command<typeof OPTIONS> = {
  name: 'fetch',
  options: OPTIONS,
  usage: () => `  fetch uscode (--release-point ID | --latest | --since ID) [--titles 1,28,5a,...] [--source URL] [--json]
                             download the US Code's title zips from the publisher (${OLRC_SOURCE}), check and
                             ingest them (release points as OLRC writes them: 118-158, 114-329not328; --since: that
                             one and every later one); a re-run fetches and writes only what is missing
  fetch state-code tn|ms [--source DIR|URL] [--releases 72,73] [--titles 1,15] [--json]
                             a state code's title files from a source in the publisher's layout
                             (transforms/<st>/oc<st>/rNN/gov.<st>.<code>.title.NN.html; default: UniCourt's
                             repository at the commit configured), kept in the data dir, then ingested
  fetch dc-code [--repo URL|PATH] [--since COMMIT|DATE] [--json]
                             the whole D.C. Code through its history: every publication on the default branch of the
                             Council's repository (${DC_COUNCIL_REMOTE}; or a local clone or git bundle),
                             oldest first; a re-run ingests only the publications not yet held`,
  run([sub, ...rest], flags, io, { cwd }) {
    const dataDir = dataDirOf(flags, cwd);
    if (sub === 'state-code') {
      return runJob('fetch-state-code', stateCodeRequest(rest, flags, dataDir, cwd), dataDir, io, flags.json, stateCodeExitCode);
    }
    if (sub !== 'uscode' && sub !== 'dc-code')
      throw new UsageError(`fetch takes one source: uscode, dc-code or state-code${sub ? ` (got '${sub}')` : ''}`);
    if (rest.length) throw new UsageError(`fetch ${sub} takes no file (got '${rest[0]}'; a repository is --repo PATH)`);
    if (sub === 'dc-code') return runJob('fetch-dc-code', fetchDcCodeRequest(flags, dataDir, cwd), dataDir, io, flags.json);
    return runJob('fetch-uscode', fetchRequest(flags, dataDir), dataDir, io, flags.json, fetchExitCode);
  },
};

/** `asof fetch uscode`'s options, checked here so a mistake is a usage error before anything is requested. */
function fetchRequest(flags: FetchFlags, dataDir: string): FetchUscodeRequest {
  const chosen = [
    flags['release-point'] !== undefined && '--release-point',
    flags.latest && '--latest',
    flags.since !== undefined && '--since',
  ].filter(Boolean);
  if (chosen.length !== 1) {
    throw new UsageError(
      chosen.length ? `give one of ${chosen.join(', ')}, not several` : 'fetch uscode needs --release-point ID, --latest or --since ID',
    );
  }
  try {
    const releasePoint = flags['release-point'] && parseReleasePointId(flags['release-point']).id;
    const since = flags.since && parseReleasePointId(flags.since).id;
    const titles = flags.titles
      ?.split(',')
      .map((t) => t.trim())
      .filter(Boolean)
      .map(titleCode);
    if (flags.titles !== undefined && !titles?.length) throw new UsageError('--titles needs at least one title, e.g. --titles 1,28');
    return {
      cacheDir: join(dataDir, 'sources', 'olrc'),
      source: normalizeSource(flags.source ?? OLRC_SOURCE),
      ...(releasePoint && { releasePoint }),
      ...(since && { since }),
      ...(flags.latest && { latest: true }),
      ...(titles && { titles }),
    };
  } catch (err) {
    if (err instanceof ReleasePointError || err instanceof TitleCodeError || err instanceof SourceError) throw new UsageError(err.message);
    throw err;
  }
}

/** `asof fetch state-code ST [--source DIR|URL] [--releases 72,73] [--titles 1,15]`, checked before anything is read. */
function stateCodeRequest(args: string[], flags: FetchFlags, dataDir: string, cwd: string): FetchStateCodeRequest {
  const [state, ...extra] = args;
  if (!state) throw new UsageError(`fetch state-code needs a state: ${Object.keys(STATE_CODE_FORMATS).join(', ')}`);
  if (extra.length) throw new UsageError(`fetch state-code takes one state (got '${extra[0]}' too); use --source for where to read`);
  if (!Object.hasOwn(STATE_CODE_FORMATS, state.toLowerCase())) {
    throw new UsageError(`no state code '${state}' (known: ${Object.keys(STATE_CODE_FORMATS).join(', ')})`);
  }
  const numbers = (flag: string, value: string | undefined, what: string): number[] | undefined => {
    if (value === undefined) return undefined;
    const items = value.split(',').map((v) => v.trim().replace(/^r/i, ''));
    if (!items.length || items.some((v) => !/^\d{1,3}$/.test(v))) throw new UsageError(`--${flag} takes ${what} (got '${value}')`);
    return items.map(Number);
  };
  const releases = numbers('releases', flags.releases, 'release numbers, e.g. --releases 72,73');
  const titles = numbers('titles', flags.titles, 'title numbers, e.g. --titles 1,15')?.map((t) => String(t).padStart(2, '0'));
  const source = flags.source;
  if (source !== undefined && /^[a-z]+:\/\//i.test(source) && !/^https?:\/\//i.test(source)) {
    throw new UsageError(`--source is a folder or an http(s) address (got '${source}')`);
  }
  return {
    state: state.toLowerCase(),
    cacheDir: join(dataDir, 'sources', 'state-codes'),
    ...(source !== undefined && { source: /^https?:\/\//i.test(source) ? source : abs(cwd, source) }),
    ...(releases && { releases }),
    ...(titles && { titles }),
  };
}

/** 1 when a file could not be fetched (a re-run tries it again). */
const stateCodeExitCode = (result: unknown): number => ((result as FetchStateCodeResult).failed.length > 0 ? 1 : 0);

/** `asof fetch dc-code`'s options: a local --repo is made absolute (the running server may have another directory). */
function fetchDcCodeRequest(flags: FetchFlags, dataDir: string, cwd: string): FetchDcCodeRequest {
  const { repo, since } = flags;
  const foreign = (['latest', 'release-point', 'titles', 'source'] as const).filter((f) => flags[f] !== undefined);
  if (foreign.length) throw new UsageError(`fetch dc-code takes --repo and --since, not --${foreign.join(', --')}`);
  if (since !== undefined && !/^(\d{4}-\d{2}-\d{2}|[0-9a-f]{7,40})$/i.test(since))
    throw new UsageError(`--since takes a publication's commit (7 to 40 hex digits) or a date YYYY-MM-DD (got '${since}')`);
  return {
    cacheDir: join(dataDir, 'sources', 'dc-code'),
    ...(repo !== undefined && { repo: isGitUrl(repo) ? repo : abs(cwd, repo) }),
    ...(since !== undefined && { since }),
  };
}

/** 1 when a title failed (the run can be repeated: it resumes and fetches only what is missing). */
const fetchExitCode = (result: unknown): number => ((result as FetchUscodeResult).failed > 0 ? 1 : 0);
