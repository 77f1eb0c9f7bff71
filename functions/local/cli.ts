import { mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SCOPES } from '#accounts/authenticate.ts';
import { issueKey } from '#accounts/issue-key.ts';
import { PlanBook } from '#accounts/plans.ts';
import type { AccountStore, ApiKeyRecord, GatewayKeys, MeterStore } from '#accounts/ports.ts';
import { revokeKey } from '#accounts/revoke-key.ts';
import { type UsageReport, usageReport } from '#accounts/usage-report.ts';
import { ConfigError, FALLBACK_ENV, fallbackSettings } from '#app/fallback.ts';
import type { RecordCheck } from '#formats/registry.ts';
import type { FetchDcCodeRequest } from '#ingest/dc-git/fetch-dc-code.ts';
import { DC_COUNCIL_REMOTE, isGitUrl } from '#ingest/dc-git/remote.ts';
import type { IngestRequest } from '#ingest/jobs.ts';
import type { FetchUscodeRequest, FetchUscodeResult } from '#ingest/olrc/fetch-uscode.ts';
import { parseReleasePointId, ReleasePointError } from '#ingest/olrc/release-points.ts';
import { TitleCodeError, titleCode } from '#ingest/olrc/titles.ts';
import { normalizeSource, OLRC_SOURCE, SourceError } from '#ingest/olrc/urls.ts';
import { INGEST_RULE_SETS, ruleSetOf } from '#ingest/rules.ts';
import type { FetchStateCodeRequest, FetchStateCodeResult } from '#ingest/state-codes/fetch.ts';
import { STATE_CODE_FORMATS } from '#ingest/state-codes/formats.ts';
import { TEMPORAL_BASES, type TemporalBasis } from '#law/model.ts';
import { sharedTokenFallback } from '#stores/courtlistener/citation-provider.ts';
import { callAdminJob } from './admin-socket.ts';
import { findRunningServer, resolveDataDir } from './data-dir.ts';
import { localLogger, warnOfSqlRestarts } from './local-logger.ts';
import type { AdminJobName, LocalServer } from './local-runtime.ts';
import type { StageTarget } from './stage-accounts.ts';
import { startStoreThreads } from './store-threads.ts';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** The command line's options, declared once: parsing, the flags' type and the usage text all read this. */
const CLI_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  plan: { type: 'string' },
  'per-minute': { type: 'string' },
  daily: { type: 'string' },
  monthly: { type: 'string' },
  test: { type: 'boolean' },
  json: { type: 'boolean' },
  date: { type: 'string' },
  label: { type: 'string' },
  'retrieved-at': { type: 'string' },
  'source-url': { type: 'string' },
  set: { type: 'string' },
  basis: { type: 'string' },
  write: { type: 'boolean' },
  'no-cache': { type: 'boolean' },
  'no-meter': { type: 'boolean' },
  'release-point': { type: 'string' },
  latest: { type: 'boolean' },
  since: { type: 'string' },
  titles: { type: 'string' },
  releases: { type: 'string' },
  state: { type: 'string' },
  source: { type: 'string' },
  repo: { type: 'string' },
  'base-url': { type: 'string' },
  key: { type: 'string' },
  /** A deployed stage's name (bin/stages.ts): the keys commands then act on its tables and gateway. */
  stage: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

type OptionValue<O> = O extends { type: 'boolean' } ? boolean : string;
export type CliFlags = { -readonly [K in keyof typeof CLI_OPTIONS]?: OptionValue<(typeof CLI_OPTIONS)[K]> } & { cwd: string };

const usage = (stageNames: readonly string[]) => `usage: asof <command> [options]

  serve                      serve the API (default port ${DEFAULT_PORT}, data dir .asof/)
      --port N                 (env PORT)         --data-dir DIR   (env ASOF_DATA_DIR)
      --host H                 (default 127.0.0.1)
      --no-cache               read the stores on every request (env ASOF_CACHE=off)
      --no-meter               check keys but count and limit nothing (benchmarks)
  mcp [--key KEY] [--base-url URL] [--port N]
                             the tools for LLM agents (Model Context Protocol) on stdin/stdout, for an agent host:
                             against --base-url (a remote asof, with /v1), else the server running on the data dir,
                             else the data dir served by this process (on --port, default a free one); the key
                             (env ASOF_API_KEY) is every tool call's bearer, billed as the REST routes
  keys create --name NAME [--scopes lookup,...] [--plan P] [--per-minute N] [--daily N] [--monthly N]
              [--test] [--json]
  keys list [--json]
  keys revoke ID
  keys usage ID [--json]     units today and this month, what is left, calls by endpoint
  keys … --stage NAME        any keys command against a deployed stage (${stageNames.join(', ') || 'none configured'}): its
                             DynamoDB tables and its API Gateway keys, with your AWS credentials
  plans list [--json]        the plans and their ceilings
  ingest uslm FILE.xml|FILE.zip... [--date YYYY-MM-DD] [--label L] [--retrieved-at ISO] [--source-url URL]
                             US Code titles (OLRC's release-point zips or their XML); the label and address of each
                             version default to the release point and OLRC's download address of the file
  ingest dc-code MANIFEST.csv [--retrieved-at ISO]
  ingest rules PATH... [--set ${INGEST_RULE_SETS.join('|')}] [--date D] [--label L] [--basis B] [--retrieved-at ISO]
                             (us-code-appendix: the Code's Title 28/18 appendix text files, .txt or .txt.gz, which
                             state their own dates)
  ingest courtlistener PATH...   CourtListener bulk-data CSV files (.csv, .csv.gz) or API records (court fixture,
                             API v3 opinions, opinion_clusters) into the case-law replica
  fetch uscode (--release-point ID | --latest | --since ID) [--titles 1,28,5a,...] [--source URL] [--json]
                             download the US Code's title zips from the publisher (${OLRC_SOURCE}), check and
                             ingest them (release points as OLRC writes them: 118-158, 114-329not328; --since: that
                             one and every later one); a re-run fetches and writes only what is missing
  ingest state-code --state tn|ms PATH... [--retrieved-at ISO]
                             a state code's title files in the publisher's structured HTML (folders are searched)
  fetch state-code tn|ms [--source DIR|URL] [--releases 72,73] [--titles 1,15] [--json]
                             a state code's title files from a source in the publisher's layout
                             (transforms/<st>/oc<st>/rNN/gov.<st>.<code>.title.NN.html; default: UniCourt's
                             repository at the commit configured), kept in the data dir, then ingested
  fetch dc-code [--repo URL|PATH] [--since COMMIT|DATE] [--json]
                             the whole D.C. Code through its history: every publication on the default branch of the
                             Council's repository (${DC_COUNCIL_REMOTE}; or a local clone or git bundle),
                             oldest first; a re-run ingests only the publications not yet held
  audit [--json]             run the quality audit now
  probe                      run the corpus health probe now
  reindex                    rebuild the search index from the stored versions
  formats check [PATH...] [--json]
                             validate the filing-format records (bundled, plus record files being authored)
                             against the corpus; print each one's status and staleness (exit 1: refused or stale)
  openapi [--write]          print (or write to openapi/) the OpenAPI document
`;

/**
 * `asof …`: parses the arguments and runs the command; returns the process exit code (2: a usage error).
 * `stages`: the deployed stages `--stage` may name (bin/ reads their configuration).
 */
export async function main(argv: string[], io: CliIo, cwd: string, stages: Readonly<Record<string, StageTarget>> = {}): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof CLI_OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: CLI_OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`asof: ${err instanceof Error ? err.message : String(err)}`);
    io.err(usage(Object.keys(stages)));
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    io.out(usage(Object.keys(stages)));
    return values.help ? 0 : 2;
  }
  return runCli(positionals, { ...values, cwd }, io, stages);
}

const DEFAULT_PORT = 8787;
/** `asof serve` exits this long after SIGINT/SIGTERM at the latest (its close() itself takes a few seconds at most). */
const HARD_STOP_MS = 10_000;
/** …and at most this long after its close() is done. */
const EXIT_AFTER_CLOSE_MS = 500;

class UsageError extends Error {}

/**
 * `--scopes` as a list: left out, the default (`lookup`); given but naming none (`''`, `','`), refused, as a key with
 * no scope can call nothing and an empty value is never taken for the default.
 */
function scopesFlag(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!scopes.length)
    throw new UsageError(`--scopes is empty (got '${value}'): give one or more of ${SCOPES.join(', ')}, or leave it out for lookup`);
  return scopes;
}

const abs = (cwd: string, p: string) => (isAbsolute(p) ? p : resolve(cwd, p));

/** Runs one command; returns the process exit code. `stages`: the deployed stages `--stage` may name. */
async function runCli(args: string[], flags: CliFlags, io: CliIo, stages: Readonly<Record<string, StageTarget>> = {}): Promise<number> {
  const [command, sub, ...rest] = args;
  const dataDir = resolveDataDir(flags['data-dir'] ? abs(flags.cwd, flags['data-dir']) : undefined);
  try {
    const stage = stageOf(command, flags.stage, stages);
    switch (command) {
      case 'serve':
        return await serve(flags, dataDir, io);
      case 'mcp':
        return await mcpStdio(flags, dataDir, io);
      case 'keys':
        return await keys(sub, rest, flags, stage ? stageAccounts(stage) : localAccounts(dataDir), io, stage);
      case 'plans':
        return plans(sub, flags, io);
      case 'ingest':
        if (!sub) throw new UsageError('ingest needs a source kind: uslm, dc-code, rules, state-code or courtlistener');
        if (sub === 'courtlistener') {
          if (!rest.length) throw new UsageError('ingest courtlistener needs at least one file or folder of CourtListener records');
          return await runJob('ingest-courtlistener', { paths: rest.map((p) => abs(flags.cwd, p)) }, dataDir, io, flags.json);
        }
        return await runJob('ingest', ingestRequest(sub, rest, flags), dataDir, io, flags.json);
      case 'fetch':
        if (sub === 'state-code') {
          return await runJob('fetch-state-code', stateCodeRequest(rest, flags, dataDir), dataDir, io, flags.json, stateCodeExitCode);
        }
        if (sub !== 'uscode' && sub !== 'dc-code')
          throw new UsageError(`fetch takes one source: uscode, dc-code or state-code${sub ? ` (got '${sub}')` : ''}`);
        if (rest.length) throw new UsageError(`fetch ${sub} takes no file (got '${rest[0]}'; a repository is --repo PATH)`);
        if (sub === 'dc-code') return await runJob('fetch-dc-code', fetchDcCodeRequest(flags, dataDir), dataDir, io, flags.json);
        return await runJob('fetch-uscode', fetchRequest(flags, dataDir), dataDir, io, flags.json, fetchExitCode);
      case 'audit':
      case 'probe':
      case 'reindex':
        return await runJob(command, {}, dataDir, io, flags.json);
      case 'formats':
        if (sub !== 'check') throw new UsageError('formats takes one subcommand: check [RECORD FILES OR FOLDERS…]');
        return await runJob('formats-check', { paths: rest.map((p) => abs(flags.cwd, p)) }, dataDir, io, flags.json, formatsExitCode);
      case 'openapi':
        return await openapi(flags, io);
      default:
        throw new UsageError(`unknown command '${command}' (try asof --help)`);
    }
  } catch (err) {
    io.err(`asof ${command}: ${err instanceof Error ? err.message : String(err)}`);
    return err instanceof UsageError || err instanceof ConfigError ? 2 : 1;
  }
}

function stageOf(command: string | undefined, name: string | undefined, stages: Readonly<Record<string, StageTarget>>): StageTarget | null {
  if (name === undefined) return null;
  if (command !== 'keys') throw new UsageError('--stage applies to the keys commands only');
  const stage = Object.hasOwn(stages, name) ? stages[name] : undefined;
  if (!stage) throw new UsageError(`unknown stage '${name}' (known: ${Object.keys(stages).join(', ') || 'none'})`);
  return stage;
}

async function serve(flags: CliFlags, dataDir: string, io: CliIo): Promise<number> {
  const port = Number(flags.port ?? process.env.PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (got '${flags.port}')`);
  const running = await findRunningServer(dataDir);
  if (running) throw new Error(`a server (pid ${running.pid}) is already serving ${dataDir} at ${running.apiUrl}`);
  const cache = !(flags['no-cache'] || process.env.ASOF_CACHE === 'off');
  const meter = !flags['no-meter'];
  const fallback = sharedTokenFallback(fallbackSettings(process.env), process.env[FALLBACK_ENV.token]?.trim() || null);
  const logger = localLogger();
  // The stores open in their threads while this thread loads the server's code (most of a start is either).
  const storeThreads = startStoreThreads(dataDir, { log: io.out, onSqlRestart: warnOfSqlRestarts(logger) });
  // A failure to open is reported where serveLocal awaits it; meanwhile it must not count as unhandled.
  storeThreads.catch(() => undefined);
  const runtime = await import('./local-runtime.ts').catch(async (err: unknown) => {
    await storeThreads.then((threads) => threads.close()).catch(() => undefined);
    throw err;
  });
  const server = await runtime.serveLocal({
    dataDir,
    port,
    host: flags.host ?? '127.0.0.1',
    log: io.out,
    cache,
    meter,
    fallback,
    logger,
    storeThreads,
  });
  if (!meter) io.out('asof: --no-meter: keys are checked, but no call is counted or limited');
  return serveUntilSignalled(server, io);
}

async function mcpStdio(flags: CliFlags, dataDir: string, io: CliIo): Promise<number> {
  const port = Number(flags.port ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (got '${flags.port}')`);
  const baseUrl = flags['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/.test(baseUrl))
    throw new UsageError(`--base-url must be an http(s) address (got '${baseUrl}')`);
  const key = flags.key ?? process.env.ASOF_API_KEY?.trim();
  const fallback = sharedTokenFallback(fallbackSettings(process.env), process.env[FALLBACK_ENV.token]?.trim() || null);
  const { serveMcpStdio } = await import('./mcp-stdio.ts');
  return serveMcpStdio({ dataDir, ...(baseUrl && { baseUrl }), ...(key && { key }), port, fallback, err: io.err });
}

/**
 * `asof serve`'s end: on SIGINT or SIGTERM, close the server (a few seconds whatever is in flight, see
 * LocalServer.close) and end the process: 0 when it closed, 1 when closing failed or took over HARD_STOP_MS, or on
 * a second signal.
 */
export function serveUntilSignalled(server: Pick<LocalServer, 'close'>, io: CliIo): Promise<number> {
  return new Promise<number>((done) => {
    const stop = () => {
      io.out('asof: stopping');
      const hardStop = () => {
        io.err('asof: exiting before the server finished closing');
        process.exit(1);
      };
      setTimeout(hardStop, HARD_STOP_MS).unref();
      process.once('SIGINT', hardStop);
      process.once('SIGTERM', hardStop);
      server
        .close()
        .then(
          () => 0,
          (err: unknown) => {
            io.err(`asof: stopping failed: ${err instanceof Error ? err.message : String(err)}`);
            return 1;
          },
        )
        .then((code) => {
          // What dropped requests left behind (a refund retrying against the closed store) must not hold the process.
          setTimeout(() => process.exit(code), EXIT_AFTER_CLOSE_MS).unref();
          done(code);
        });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

function ingestRequest(kind: string, paths: string[], flags: CliFlags): IngestRequest {
  if (!paths.length) throw new UsageError(`ingest ${kind} needs at least one file`);
  const files = paths.map((p) => abs(flags.cwd, p));
  const retrievedAt = flags['retrieved-at'];
  if (retrievedAt !== undefined && Number.isNaN(Date.parse(retrievedAt)))
    throw new UsageError(`--retrieved-at must be an ISO timestamp (got '${retrievedAt}')`);
  if (flags.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(flags.date))
    throw new UsageError(`--date must be YYYY-MM-DD (got '${flags.date}')`);
  const common = {
    ...(retrievedAt && { retrievedAt }),
    ...(flags.date && { date: flags.date }),
    ...(flags.label && { label: flags.label }),
  };
  switch (kind) {
    case 'uslm': {
      const sourceUrl = flags['source-url'];
      if (sourceUrl !== undefined) {
        if (!URL.canParse(sourceUrl)) throw new UsageError(`--source-url must be a URL (got '${sourceUrl}')`);
        if (files.length !== 1) throw new UsageError('--source-url names one file: ingest the files one at a time');
      }
      return { kind: 'uslm', files, ...common, ...(sourceUrl && { sourceUrl }) };
    }
    case 'dc-code':
      if (files.length !== 1) throw new UsageError('ingest dc-code takes one MANIFEST.csv');
      return { kind: 'dc-code', manifest: files[0]!, ...(retrievedAt && { retrievedAt }) };
    case 'rules': {
      const set = INGEST_RULE_SETS.find((s) => s === (flags.set ?? ruleSetOf(files[0]!)));
      if (!set) throw new UsageError(`ingest rules needs --set ${INGEST_RULE_SETS.join('|')} (or a folder named after the set)`);
      if (flags.basis !== undefined && !(TEMPORAL_BASES as readonly string[]).includes(flags.basis)) {
        throw new UsageError(`--basis must be one of ${TEMPORAL_BASES.join(', ')}`);
      }
      return { kind: 'rules', set, paths: files, ...common, ...(flags.basis && { temporalBasis: flags.basis as TemporalBasis }) };
    }
    case 'state-code': {
      const state = flags.state?.toLowerCase();
      if (!state || !Object.hasOwn(STATE_CODE_FORMATS, state)) {
        throw new UsageError(`ingest state-code needs --state ${Object.keys(STATE_CODE_FORMATS).join('|')}`);
      }
      return { kind: 'state-code', state, paths: files, ...(retrievedAt && { retrievedAt }) };
    }
    default:
      throw new UsageError(`unknown source kind '${kind}' (uslm, dc-code, rules, state-code, courtlistener)`);
  }
}

/** Through the running server's admin socket when there is one; otherwise on the stores directly. */
async function runJob(
  job: AdminJobName,
  body: unknown,
  dataDir: string,
  io: CliIo,
  json?: boolean,
  exitCode: (result: unknown) => number = () => 0,
): Promise<number> {
  const running = await findRunningServer(dataDir);
  let result: unknown;
  if (running) {
    result = await callAdminJob(running.adminSocket, job, body, io.out);
  } else {
    const { ADMIN_JOBS, localJobs, openLocalStores } = await import('./local-runtime.ts');
    const stores = await openLocalStores({ dataDir, log: io.out });
    try {
      result = await ADMIN_JOBS[job](localJobs(stores), stores)(body, io.out);
    } finally {
      await stores.close();
    }
  }
  if (json) io.out(JSON.stringify(result, null, 2));
  return exitCode(result);
}

/** `asof fetch uscode`'s options, checked here so a mistake is a usage error before anything is requested. */
function fetchRequest(flags: CliFlags, dataDir: string): FetchUscodeRequest {
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
function stateCodeRequest(args: string[], flags: CliFlags, dataDir: string): FetchStateCodeRequest {
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
    ...(source !== undefined && { source: /^https?:\/\//i.test(source) ? source : abs(flags.cwd, source) }),
    ...(releases && { releases }),
    ...(titles && { titles }),
  };
}

/** 1 when a file could not be fetched (a re-run tries it again). */
const stateCodeExitCode = (result: unknown): number => ((result as FetchStateCodeResult).failed.length > 0 ? 1 : 0);

/** `asof fetch dc-code`'s options: a local --repo is made absolute (the running server may have another directory). */
function fetchDcCodeRequest(flags: CliFlags, dataDir: string): FetchDcCodeRequest {
  const { repo, since } = flags;
  const foreign = (['latest', 'release-point', 'titles', 'source'] as const).filter((f) => flags[f] !== undefined);
  if (foreign.length) throw new UsageError(`fetch dc-code takes --repo and --since, not --${foreign.join(', --')}`);
  if (since !== undefined && !/^(\d{4}-\d{2}-\d{2}|[0-9a-f]{7,40})$/i.test(since))
    throw new UsageError(`--since takes a publication's commit (7 to 40 hex digits) or a date YYYY-MM-DD (got '${since}')`);
  return {
    cacheDir: join(dataDir, 'sources', 'dc-code'),
    ...(repo !== undefined && { repo: isGitUrl(repo) ? repo : abs(flags.cwd, repo) }),
    ...(since !== undefined && { since }),
  };
}

/** 1 when a title failed (the run can be repeated: it resumes and fetches only what is missing). */
const fetchExitCode = (result: unknown): number => ((result as FetchUscodeResult).failed > 0 ? 1 : 0);

/** 1 when a record is refused or stale: the operator (or the scheduled job) has a reading to redo. */
const formatsExitCode = (result: unknown): number => ((result as RecordCheck[]).some((c) => !c.valid || c.stale) ? 1 : 0);

/** The keys and meters a keys command works on, and the gateway keys on a deployed stage (null locally). */
interface Accounts {
  store: AccountStore;
  meters: MeterStore;
  gateway: GatewayKeys | null;
}

type WithAccounts = <T>(fn: (accounts: Accounts) => Promise<T>) => Promise<T>;

/** The local data dir's, through the running server's DynamoDB endpoint when there is one. */
const localAccounts =
  (dataDir: string): WithAccounts =>
  async (fn) => {
    const running = await findRunningServer(dataDir);
    const { openEmbeddedAccountStore } = await import('./embedded-stores.ts');
    const opened = await openEmbeddedAccountStore(dataDir, running?.dynamo);
    try {
      return await fn({ store: opened.store, meters: opened.meters, gateway: null });
    } finally {
      await opened.close();
    }
  };

/** A deployed stage's (its DynamoDB tables and its API Gateway keys). */
const stageAccounts =
  (stage: StageTarget): WithAccounts =>
  async (fn) => {
    // Loaded for --stage only: the API Gateway client would add to every other command's start.
    const { openStageAccounts } = await import('./stage-accounts.ts');
    const opened = openStageAccounts(stage);
    try {
      return await fn(opened);
    } finally {
      await opened.close();
    }
  };

const describeKey = (k: ApiKeyRecord) =>
  `${k.id}  ${k.prefix}…  ${k.name}  plan=${k.plan}${describeOverrides(k.limits)}  scopes=${k.scopes.join(',')}${k.test ? '  test' : ''}${k.revokedAt ? `  revoked ${k.revokedAt}` : ''}`;

const describeOverrides = (limits: ApiKeyRecord['limits']) =>
  Object.entries(limits)
    .map(([name, n]) => `  ${name}=${n}`)
    .join('');

/** `--per-minute`, `--daily`, `--monthly`: whole numbers above zero. */
function limitFlags(flags: CliFlags): ApiKeyRecord['limits'] {
  const limits: ApiKeyRecord['limits'] = {};
  for (const [flag, field] of [
    ['per-minute', 'perMinute'],
    ['daily', 'daily'],
    ['monthly', 'monthly'],
  ] as const) {
    const raw = flags[flag];
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1)
      throw new UsageError(`--${flag} must be a whole number above 0 (got '${raw}')`);
    limits[field] = n;
  }
  return limits;
}

const n = (x: number) => x.toLocaleString('en-US');

function printUsage(r: UsageReport, io: CliIo): void {
  io.out(
    `${r.keyId}  ${r.name}${r.test ? '  (test key)' : ''}  plan ${r.plan}: ${n(r.ceilings.perMinute)}/minute, ${n(r.ceilings.daily)} units/day, ${n(r.ceilings.monthly)} units/month`,
  );
  io.out(
    `today (${r.today.date} UTC): ${n(r.today.units)} units, ${n(r.today.calls)} calls; ${n(r.remaining.day)} units left (resets in ${Math.ceil(r.resetsIn.day / 60)} min)`,
  );
  for (const row of r.today.byRoute) {
    const statuses = Object.entries(row.statuses)
      .map(([status, calls]) => `${status}×${calls}`)
      .join(' ');
    io.out(`  ${row.routeId.padEnd(18)} ${String(row.calls).padStart(6)} calls ${String(row.units).padStart(6)} units  ${statuses}`);
  }
  io.out(
    `this month (${r.month.month}): ${n(r.month.units)} units; ${n(r.remaining.month)} units left (resets in ${Math.ceil(r.resetsIn.month / 3600)} h)`,
  );
  for (const d of r.month.days) io.out(`  ${d.date} ${String(d.units).padStart(8)} units`);
  io.out(`this minute: ${n(r.remaining.minute)} of ${n(r.ceilings.perMinute)} requests left`);
}

async function keys(
  sub: string | undefined,
  rest: string[],
  flags: CliFlags,
  withAccounts: WithAccounts,
  io: CliIo,
  stage: StageTarget | null,
): Promise<number> {
  const onStage = stage ? ` on stage ${stage.name}` : '';
  const stageFlag = stage ? ` --stage ${stage.name}` : '';
  switch (sub) {
    case 'create': {
      if (!flags.name) throw new UsageError('keys create needs --name NAME');
      const scopes = scopesFlag(flags.scopes);
      const limits = limitFlags(flags);
      const issued = await withAccounts(({ store, gateway }) =>
        issueKey(
          store,
          { name: flags.name!, ...(scopes && { scopes }), test: !!flags.test, ...(flags.plan && { plan: flags.plan }), limits },
          new Date(),
          new PlanBook(),
          gateway,
        ),
      );
      if (flags.json) io.out(JSON.stringify(issued));
      else {
        io.out(
          `Created ${issued.test ? 'test' : 'live'} key ${issued.id}${onStage} (scopes: ${issued.scopes.join(', ')}). Copy it now; it is not shown again:`,
        );
        io.out(issued.key);
      }
      return 0;
    }
    case 'list': {
      const list = await withAccounts(({ store }) => store.listKeys());
      if (flags.json)
        io.out(
          JSON.stringify(
            list.map(({ hash: _hash, ...k }) => k),
            null,
            2,
          ),
        );
      else if (!list.length) io.out(`no keys yet${onStage}: asof keys create --name NAME${stageFlag}`);
      else for (const k of list) io.out(describeKey(k));
      return 0;
    }
    case 'revoke': {
      const id = rest[0];
      if (!id) throw new UsageError(`keys revoke needs a key id (see asof keys list${stageFlag})`);
      const revoked = await withAccounts(({ store, gateway }) => revokeKey(store, id, new Date(), gateway));
      if (!revoked) throw new Error(`no key with id ${id}${onStage}`);
      const gatewayNote = { disabled: '; its gateway key is disabled', absent: `; it has no gateway key${onStage}`, none: '' }[
        revoked.gatewayKey ?? 'none'
      ];
      io.out(`Revoked ${describeKey(revoked.record)}${gatewayNote}`);
      return 0;
    }
    case 'usage': {
      const id = rest[0];
      if (!id) throw new UsageError(`keys usage needs a key id (see asof keys list${stageFlag})`);
      const report = await withAccounts(async ({ store, meters }) => {
        const key = await store.getById(id);
        if (!key) throw new Error(`no key with id ${id}${onStage}`);
        return usageReport(meters, new PlanBook(), key, new Date());
      });
      if (flags.json) io.out(JSON.stringify(report, null, 2));
      else printUsage(report, io);
      return 0;
    }
    default:
      throw new UsageError('keys takes create, list, revoke or usage');
  }
}

function plans(sub: string | undefined, flags: CliFlags, io: CliIo): number {
  if (sub !== undefined && sub !== 'list') throw new UsageError('plans takes list');
  const book = new PlanBook();
  if (flags.json) {
    io.out(JSON.stringify({ default: book.defaultPlan, plans: book.plans }, null, 2));
    return 0;
  }
  io.out(`${'plan'.padEnd(12)} ${'per minute'.padStart(10)} ${'units/day'.padStart(12)} ${'units/month'.padStart(12)}`);
  for (const p of book.plans) {
    io.out(
      `${`${p.id}${p.id === book.defaultPlan ? '*' : ''}`.padEnd(12)} ${n(p.perMinute).padStart(10)} ${n(p.daily).padStart(12)} ${n(p.monthly).padStart(12)}  ${p.name}`,
    );
  }
  io.out('* the plan of a key created without --plan; each key may override any of the three numbers');
  return 0;
}

async function openapi(flags: CliFlags, io: CliIo): Promise<number> {
  const [{ API_VERSION }, { buildOpenApi, openApiYaml }, { ROUTES }] = await Promise.all([
    import('#http/handlers/spec.ts'),
    import('#http/openapi.ts'),
    import('#http/routes.ts'),
  ]);
  const doc = buildOpenApi(ROUTES, { serverUrl: `http://127.0.0.1:${DEFAULT_PORT}/v1`, version: API_VERSION });
  if (!flags.write) {
    io.out(openApiYaml(doc));
    return 0;
  }
  const dir = join(flags.cwd, 'openapi');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'openapi.yaml'), openApiYaml(doc));
  await writeFile(join(dir, 'openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
  io.out(`wrote ${join(dir, 'openapi.yaml')} and openapi.json`);
  return 0;
}
