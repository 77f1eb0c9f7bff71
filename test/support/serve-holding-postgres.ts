/**
 * A child process for the shutdown test: the local server stopped by `asof serve`'s own signal handling
 * (serveUntilSignalled), with a statement holding the embedded PostgreSQL for ten minutes, as a runaway query would.
 * Usage: node --import tsx test/support/serve-holding-postgres.ts DATA_DIR. Prints `holding <api url> <key>` once the
 * statement runs.
 */
import { issueKey } from '#accounts/issue-key.ts';
import { serveUntilSignalled } from '#local/commands/serve.ts';
import { serveLocal } from '#local/local-runtime.ts';

const io = {
  out: (line: string) => process.stdout.write(`${line}\n`),
  err: (line: string) => process.stderr.write(`${line}\n`),
};
const server = await serveLocal({ dataDir: process.argv[2]!, port: 0, sample: false, schedules: false });
const { key } = await issueKey(server.stores.accounts, { name: 'shutdown test' }, new Date());
// A job's statement: its budget (minutes) is far beyond the test, so only the shutdown can stop it.
void server.stores.sql.query('SELECT pg_sleep(600)').catch(() => undefined);
io.out(`holding ${server.url} ${key}`);
process.exitCode = await serveUntilSignalled(server, io);
