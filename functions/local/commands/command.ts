/**
 * What an `asof` command is to the dispatcher (functions/local/cli.ts): its name, the flags it takes, its lines of
 * the usage text and what it runs. Each command's module exports one (or, for audit, probe and reindex, three), so a
 * command's flags, help and code sit together and a flag it does not declare is refused before it runs.
 */
import type { ParseArgsConfig } from 'node:util';
import type { StageTarget } from '../stage-accounts.ts';

/** A command's flags in node:util parseArgs' form. */
export type Options = NonNullable<ParseArgsConfig['options']>;

type OptionValue<O> = O extends { type: 'boolean' } ? boolean : O extends { type: 'string' } ? string : string | boolean;
/** What parsing `O` gives: each flag given, as a string or a boolean after its declared type. */
export type Flags<O extends Options> = { -readonly [K in keyof O]?: OptionValue<O[K]> };

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** A mistake in the command line: the process exits 2. */
export class UsageError extends Error {}

/** What every command may read besides its arguments and flags. */
export interface CommandContext {
  /** The directory relative paths are read from. */
  cwd: string;
  /** The deployed stages `--stage` may name (bin/ reads their configuration). */
  stages: Readonly<Record<string, StageTarget>>;
}

export interface Command<O extends Options = Options> {
  /** The first word of the command line: `asof <name> …`. */
  readonly name: string;
  /** The flags it takes, in node:util parseArgs' form; `--help` is everyone's and is not listed here. */
  readonly options: O;
  /** Its block of `asof --help`, each line as printed (`stageNames`: the stages `--stage` may name). */
  usage(stageNames: readonly string[]): string;
  /** Runs it on the positional arguments after its name; returns the process exit code. */
  run(args: string[], flags: Flags<O>, io: CliIo, context: CommandContext): Promise<number> | number;
}

/** A count as the CLI prints it, with thousands separators. */
export const count = (x: number): string => x.toLocaleString('en-US');
