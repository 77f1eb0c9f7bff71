/**
 * asof — the command line: `serve` runs the API on embedded stores; every other command works against the same
 * data dir whether or not a server is running on it (through the server when it is, on the stores directly when not).
 */
import { resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type CliIo, runCli } from '#local/cli.ts';
import type { StageTarget } from '#local/stage-accounts.ts';
import { STAGES } from './stages.ts';

const USAGE = `usage: asof <command> [options]

  serve                      serve the API (default port 8787, data dir .asof/)
      --port N                 (env PORT)         --data-dir DIR   (env ASOF_DATA_DIR)
      --host H                 (default 127.0.0.1)
      --no-cache               read the stores on every request (env ASOF_CACHE=off)
      --no-meter               check keys but count and limit nothing (benchmarks)
  keys create --name NAME [--scopes lookup,...] [--plan P] [--per-minute N] [--daily N] [--monthly N]
              [--test] [--json]
  keys list [--json]
  keys revoke ID
  keys usage ID [--json]     units today and this month, what is left, calls by endpoint
  keys … --stage NAME        any keys command against a deployed stage (${Object.keys(STAGES).join(', ')}): its DynamoDB
                             tables and its API Gateway keys, with your AWS credentials
  plans list [--json]        the plans and their ceilings
  ingest uslm FILE.xml... [--date YYYY-MM-DD] [--label L] [--retrieved-at ISO]
  ingest dc-code MANIFEST.csv [--retrieved-at ISO]
  ingest rules PATH... [--set frap|sup-ct|ndrappp] [--date D] [--label L] [--basis B] [--retrieved-at ISO]
  ingest courtlistener PATH...   CourtListener bulk-data CSV files (.csv, .csv.gz) or API records (court fixture,
                             API v3 opinions, opinion_clusters) into the case-law replica
  audit [--json]             run the quality audit now
  probe                      run the corpus health probe now
  reindex                    rebuild the search index from the stored versions
  formats check [PATH...] [--json]
                             validate the filing-format records (bundled, plus record files being authored)
                             against the corpus; print each one's status and staleness (exit 1: refused or stale)
  openapi [--write]          print (or write to openapi/) the OpenAPI document
`;

const options = {
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
  set: { type: 'string' },
  basis: { type: 'string' },
  write: { type: 'boolean' },
  'no-cache': { type: 'boolean' },
  'no-meter': { type: 'boolean' },
  stage: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

/** The deployed stages `--stage` may name: what the keys commands need of each stage's configuration. */
const STAGE_TARGETS: Record<string, StageTarget> = Object.fromEntries(
  Object.entries(STAGES).map(([name, config]) => [name, { name, prefix: config.prefix, ...(config.region && { region: config.region }) }]),
);

const io: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

try {
  const { values, positionals } = parseArgs({ options, allowPositionals: true, strict: true });
  if (values.help || positionals.length === 0) {
    io.out(USAGE);
    process.exitCode = positionals.length === 0 && !values.help ? 2 : 0;
  } else {
    process.exitCode = await runCli(positionals, { ...values, cwd: resolve('.') }, io, STAGE_TARGETS);
  }
} catch (err) {
  io.err(`asof: ${err instanceof Error ? err.message : String(err)}`);
  if (err instanceof TypeError && /Unknown option|Unexpected argument/.test(err.message)) io.err(USAGE);
  process.exitCode = 1;
}
