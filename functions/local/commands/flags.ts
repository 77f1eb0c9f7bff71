/**
 * The flags several commands share (`--data-dir`, `--json`, `--help`), declared once, and the helpers that read
 * them. A command lists what it takes by spreading these into its options beside its own.
 */
import { isAbsolute, resolve } from 'node:path';
import { resolveDataDir } from '../data-dir.ts';
import { type Flags, type Options, UsageError } from './command.ts';

/** The data dir a command works on (default .asof/, env ASOF_DATA_DIR). */
export const DATA_DIR = { 'data-dir': { type: 'string' } } as const satisfies Options;
/** Print the result as JSON. */
export const JSON_OUTPUT = { json: { type: 'boolean' } } as const satisfies Options;
/** `asof --help`, `asof <command> -h`: taken by every command. */
export const HELP = { help: { type: 'boolean', short: 'h' } } as const satisfies Options;

/** `asof serve`'s port when neither --port nor PORT says; also the OpenAPI document's local server. */
export const DEFAULT_PORT = 8787;

export const abs = (cwd: string, p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));

/** `--data-dir` made absolute against the command's directory, else ASOF_DATA_DIR, else .asof/. */
export const dataDirOf = (flags: Flags<typeof DATA_DIR>, cwd: string): string =>
  resolveDataDir(flags['data-dir'] ? abs(cwd, flags['data-dir']) : undefined);

/** `--port`, or `fallback` when it is not given: a port number (0: any free one). */
export function portOf(flag: string | undefined, fallback: string | number): number {
  const port = Number(flag ?? fallback);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (got '${flag}')`);
  return port;
}
