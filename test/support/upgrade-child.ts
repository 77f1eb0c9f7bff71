/**
 * A child process for the interrupted-upgrade test: opens a data dir's SQLite files as every process of this release
 * does (upgrading an old layout first), printing each progress line. At the first line that says a table was copied
 * it stops where it is (the main thread blocked, nothing more written), so that the test can kill it at that point
 * of the upgrade: past its first table, before the others and before any rename.
 * Usage: node --import tsx test/support/upgrade-child.ts DATA_DIR
 */
import { writeSync } from 'node:fs';
import { openLocalDatabases } from '#local/embedded-stores.ts';

const [dataDir] = process.argv.slice(2);
const pause = new Int32Array(new SharedArrayBuffer(4));

const dbs = await openLocalDatabases(dataDir!, (line) => {
  writeSync(1, `${line}\n`);
  if (/the \w+ table copied/.test(line)) Atomics.wait(pause, 0, 0, 60_000);
});
dbs.close();
writeSync(1, 'done\n');
