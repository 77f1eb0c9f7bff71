/** `asof audit`, `asof probe`, `asof reindex`: the scheduled jobs, run now on the data dir (no argument of their own). */
import type { Command } from './command.ts';
import { DATA_DIR, dataDirOf, JSON_OUTPUT } from './flags.ts';
import { runJob } from './run-job.ts';

const OPTIONS = { ...JSON_OUTPUT, ...DATA_DIR } as const;

const job = (name: 'audit' | 'probe' | 'reindex', usage: string): Command<typeof OPTIONS> => ({
  name,
  options: OPTIONS,
  usage: () => usage,
  run: (_args, flags, io, { cwd }) => runJob(name, {}, dataDirOf(flags, cwd), io, flags.json),
});

export const auditCommand = job('audit', '  audit [--json]             run the quality audit now');
export const probeCommand = job('probe', '  probe                      run the corpus health probe now');
export const reindexCommand = job('reindex', '  reindex                    rebuild the search index from the stored versions');
