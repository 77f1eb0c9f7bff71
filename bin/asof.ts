/**
 * asof — the command line: `serve` runs the API on embedded stores; every other command works against the same
 * data dir whether or not a server is running on it (through the server when it is, on the stores directly when not).
 * bin/ only reads the stage configuration; the commands are functions/local/cli.ts (the table) and commands/.
 */
import { resolve } from 'node:path';
import { type CliIo, main } from '#local/cli.ts';
import type { StageTarget } from '#local/stage-accounts.ts';
import { STAGES } from './stages.ts';

/** The deployed stages `--stage` may name: what the keys commands need of each stage's configuration. */
const STAGE_TARGETS: Record<string, StageTarget> = Object.fromEntries(
  Object.entries(STAGES).map(([name, config]) => [name, { name, prefix: config.prefix, ...(config.region && { region: config.region }) }]),
);

const io: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

process.exitCode = await main(process.argv.slice(2), io, resolve('.'), STAGE_TARGETS);
