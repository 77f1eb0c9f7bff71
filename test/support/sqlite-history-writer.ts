/**
 * A second process on law.sqlite (as `asof ingest` in another terminal would be), for test/contract/sqlite-law.test.ts:
 * `node --import tsx sqlite-history-writer.ts <file> <key> <times>` adds one to the summary's `versions` of the key's
 * history `times` times, each a read and a write conditional on the revision read, again after a lost race; it
 * prints `{ "done": times, "lost": n }` (n: the races it lost).
 */
import { ConcurrentUpdateError } from '#shared/errors.ts';
import { SqliteDatabase } from '#stores/sqlite/database.ts';
import { FORMAT_STORE_SCHEMA } from '#stores/sqlite/format-store.ts';
import { SqliteVersionStore, VERSION_STORE_SCHEMA } from '#stores/sqlite/version-store.ts';

const [file, key, times] = process.argv.slice(2);
if (!file || !key || !times) throw new Error('usage: sqlite-history-writer.ts <file> <key> <times>');

const db = SqliteDatabase.open(file, { store: 'versions', schemas: [VERSION_STORE_SCHEMA, FORMAT_STORE_SCHEMA] });
const store = new SqliteVersionStore(db);
let lost = 0;
for (let done = 0; done < Number(times); ) {
  const history = (await store.getHistories('us', 'statutes', [key])).get(key);
  if (!history) throw new Error(`no history of ${key}`);
  try {
    await store.putHistory({ ...history, summary: { ...history.summary, versions: history.summary.versions + 1 } });
    done++;
  } catch (err) {
    if (!(err instanceof ConcurrentUpdateError)) throw err;
    lost++;
  }
  // Let the other processes in between a read and a write now and then.
  if (done % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
}
db.close();
process.stdout.write(`${JSON.stringify({ done: Number(times), lost })}\n`);
