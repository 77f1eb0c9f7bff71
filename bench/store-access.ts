/**
 * The one place the bench reaches into the laptop's stores rather than through `asof` commands or HTTP: the key
 * store of a data dir, opened as `asof keys` opens it (functions/local/commands/keys.ts, localAccounts): its SQLite
 * file directly, whether or not a server runs on it (the server sees a new key at once). The bench issues thousands of
 * keys through it (a load spreads its requests over them); one `asof keys create` a key would take minutes.
 */
import type { AccountStore } from '#accounts/ports.ts';
import { openEmbeddedAccountStore } from '#local/embedded-stores.ts';

export async function withDataDirAccounts<T>(dataDir: string, fn: (store: AccountStore) => Promise<T>): Promise<T> {
  const opened = await openEmbeddedAccountStore(dataDir);
  try {
    return await fn(opened.store);
  } finally {
    await opened.close();
  }
}
