/**
 * `asof …`: the table of commands and the dispatcher. Each command is a module of commands/ that declares its flags,
 * its lines of the usage text and what it runs; here the command line is parsed, a flag the command does not take is
 * refused (exit 2, naming both), and the usage text is assembled from the commands' own blocks. The commands load
 * their heavy parts (the server, the stores, the HTTP layer) only when they run: `asof serve` starts the stores'
 * threads before it imports the server (commands/serve.ts).
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '#app/fallback.ts';
import { type CliIo, type Command, type Flags, type Options, UsageError } from './commands/command.ts';
import { fetchCommand } from './commands/fetch.ts';
import { HELP } from './commands/flags.ts';
import { formatsCommand } from './commands/formats.ts';
import { ingestCommand } from './commands/ingest.ts';
import { auditCommand, probeCommand, reindexCommand } from './commands/jobs.ts';
import { keysCommand } from './commands/keys.ts';
import { mcpCommand } from './commands/mcp.ts';
import { openapiCommand } from './commands/openapi.ts';
import { plansCommand } from './commands/plans.ts';
import { serveCommand } from './commands/serve.ts';
import type { StageTarget } from './stage-accounts.ts';

export type { CliIo } from './commands/command.ts';

/** The commands, in the order `asof --help` lists them. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  mcpCommand,
  keysCommand,
  plansCommand,
  ingestCommand,
  fetchCommand,
  auditCommand,
  probeCommand,
  reindexCommand,
  formatsCommand,
  openapiCommand,
];

/**
 * Every command's flags together, for the first parse (which finds the command wherever the flags stand): a flag two
 * commands declare must be the same flag in both, or the table is refused.
 */
export function allOptions(commands: readonly Command[]): Options {
  const all: Options = { ...HELP };
  for (const command of commands) {
    for (const [name, option] of Object.entries(command.options)) {
      const seen = all[name];
      if (seen && (seen.type !== option.type || seen.short !== option.short || seen.multiple !== option.multiple)) {
        throw new Error(`asof: --${name} is declared differently by ${command.name} and another command`);
      }
      all[name] = option;
    }
  }
  return all;
}

/** `asof --help`: the commands' own blocks, in the table's order. */
export const usage = (stageNames: readonly string[], commands: readonly Command[] = COMMANDS): string =>
  `usage: asof <command> [options]\n\n${commands.map((c) => `${c.usage(stageNames)}\n`).join('')}`;

type Parsed = ReturnType<typeof parseArgs<{ options: Options; allowPositionals: true; strict: true; tokens: true }>>;
type Token = Parsed['tokens'][number];

/**
 * A flag given that `command` does not declare: a usage error naming the flag, the command, the commands that do take
 * it and what this one takes.
 */
function refuseForeignFlags(command: Command, tokens: readonly Token[], commands: readonly Command[]): void {
  for (const token of tokens) {
    if (token.kind !== 'option' || Object.hasOwn(command.options, token.name) || Object.hasOwn(HELP, token.name)) continue;
    const takers = commands.filter((c) => Object.hasOwn(c.options, token.name)).map((c) => c.name);
    const taken = Object.keys(command.options).map((name) => `--${name}`);
    throw new UsageError(
      `${token.rawName} is not a flag of ${command.name}, only of ${takers.join(', ')} (${command.name} takes ${taken.join(', ')})`,
    );
  }
}

/**
 * `asof …`: parses the arguments and runs the command; returns the process exit code (2: a usage error).
 * `stages`: the deployed stages `--stage` may name (bin/ reads their configuration).
 */
export function main(argv: string[], io: CliIo, cwd: string, stages: Readonly<Record<string, StageTarget>> = {}): Promise<number> {
  return dispatch(COMMANDS, argv, io, cwd, stages);
}

/** `main` on a table of commands. */
export async function dispatch(
  commands: readonly Command[],
  argv: string[],
  io: CliIo,
  cwd: string,
  stages: Readonly<Record<string, StageTarget>>,
): Promise<number> {
  const stageNames = Object.keys(stages);
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args: argv, options: allOptions(commands), allowPositionals: true, strict: true, tokens: true });
  } catch (err) {
    io.err(`asof: ${err instanceof Error ? err.message : String(err)}`);
    io.err(usage(stageNames, commands));
    return 2;
  }
  const { values, positionals, tokens } = parsed;
  if (values.help || positionals.length === 0) {
    io.out(usage(stageNames, commands));
    return values.help ? 0 : 2;
  }
  const [name, ...args] = positionals as [string, ...string[]];
  try {
    const command = commands.find((c) => c.name === name);
    if (!command) throw new UsageError(`unknown command '${name}' (try asof --help)`);
    refuseForeignFlags(command, tokens, commands);
    return await command.run(args, values as Flags<Options>, io, { cwd, stages });
  } catch (err) {
    io.err(`asof ${name}: ${err instanceof Error ? err.message : String(err)}`);
    return err instanceof UsageError || err instanceof ConfigError ? 2 : 1;
  }
}
