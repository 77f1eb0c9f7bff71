/** `asof formats check [PATH...]`: the filing-format records validated against the corpus, each one's status and staleness. */
import type { RecordCheck } from '#formats/registry.ts';
import { type Command, UsageError } from './command.ts';
import { abs, DATA_DIR, dataDirOf, JSON_OUTPUT } from './flags.ts';
import { runJob } from './run-job.ts';

const OPTIONS = { ...JSON_OUTPUT, ...DATA_DIR } as const;

/** 1 when a record is refused or stale: the operator (or the scheduled job) has a reading to redo. */
const formatsExitCode = (result: unknown): number => ((result as RecordCheck[]).some((c) => !c.valid || c.stale) ? 1 : 0);

export const formatsCommand: Command<typeof OPTIONS> = {
  name: 'formats',
  options: OPTIONS,
  usage: () => `  formats check [PATH...] [--json]
                             validate the filing-format records (bundled, plus record files being authored)
                             against the corpus; print each one's status and staleness (exit 1: refused or stale)`,
  run([sub, ...rest], flags, io, { cwd }) {
    const dataDir = dataDirOf(flags, cwd);
    if (sub !== 'check') throw new UsageError('formats takes one subcommand: check [RECORD FILES OR FOLDERS…]');
    return runJob('formats-check', { paths: rest.map((p) => abs(cwd, p)) }, dataDir, io, flags.json, formatsExitCode);
  },
};
