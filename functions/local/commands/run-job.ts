/**
 * An admin job (ingest, fetch, audit, probe, reindex, formats check) from the command line: through the running
 * server's admin socket when there is one, otherwise on the data dir's stores directly, opened for the job only.
 */
import { callAdminJob } from '../admin-socket.ts';
import { findRunningServer } from '../data-dir.ts';
import type { AdminJobName } from '../local-runtime.ts';
import type { CliIo } from './command.ts';

/** Runs `job` on `body`; prints its result as JSON when `json`; returns `exitCode` of the result. */
export async function runJob(
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
    const { ADMIN_JOBS, localJobs, openLocalStores } = await import('../local-runtime.ts');
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
