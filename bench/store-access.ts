/**
 * The one place the bench reaches into the laptop's stores rather than through `asof` commands or HTTP: the key
 * store of a data dir, opened as `asof keys` opens it (functions/local/cli.ts, localAccounts) — through the running
 * server when there is one, so a key is usable at once, or on the data dir directly. The bench issues thousands of
 * keys through it (a load spreads its requests over them); one `asof keys create` a key would take minutes. When
 * the local runtime changes how it opens the account store (the move to SQLite), this function follows it.
 */
import type { AccountStore } from '#accounts/ports.ts';
import { findRunningServer } from '#local/data-dir.ts';
import { openEmbeddedAccountStore } from '#local/embedded-stores.ts';

export async function withDataDirAccounts<T>(dataDir: string, fn: (store: AccountStore) => Promise<T>): Promise<T> {
  const running = await findRunningServer(dataDir);
  const opened = await openEmbeddedAccountStore(dataDir, running?.dynamo);
  try {
    return await fn(opened.store);
  } finally {
    await opened.close();
  }
}
