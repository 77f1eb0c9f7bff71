/**
 * `asof serve`: the API on the data dir's embedded stores, until SIGINT or SIGTERM. The stores' threads start before
 * the server's code is imported, so their opening and the module loading overlap (docs/DECISIONS.md "Local runtime",
 * start-up): this module imports nothing of the server itself, only store-threads.ts, which imports no adapter.
 */
import { FALLBACK_ENV, fallbackSettings } from '#app/fallback.ts';
import { sharedTokenFallback } from '#stores/courtlistener/citation-provider.ts';
import { findRunningServer } from '../data-dir.ts';
import { localLogger, warnOfSqlRestarts } from '../local-logger.ts';
import type { LocalServer } from '../local-runtime.ts';
import { startStoreThreads } from '../store-threads.ts';
import type { CliIo, Command } from './command.ts';
import { DATA_DIR, DEFAULT_PORT, dataDirOf, portOf } from './flags.ts';

/** `asof serve` exits this long after SIGINT/SIGTERM at the latest (its close() itself takes a few seconds at most). */
const HARD_STOP_MS = 10_000;
/** …and at most this long after its close() is done. */
const EXIT_AFTER_CLOSE_MS = 500;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  ...DATA_DIR,
  'no-cache': { type: 'boolean' },
  'no-meter': { type: 'boolean' },
} as const;

export const serveCommand: Command<typeof OPTIONS> = {
  name: 'serve',
  options: OPTIONS,
  usage: () => `  serve                      serve the API (default port ${DEFAULT_PORT}, data dir .asof/)
      --port N                 (env PORT)         --data-dir DIR   (env ASOF_DATA_DIR)
      --host H                 (default 127.0.0.1)
      --no-cache               read the stores on every request (env ASOF_CACHE=off)
      --no-meter               check keys but count and limit nothing (benchmarks)`,
  async run(_args, flags, io, { cwd }) {
    const dataDir = dataDirOf(flags, cwd);
    const port = portOf(flags.port, process.env.PORT ?? DEFAULT_PORT);
    const running = await findRunningServer(dataDir);
    if (running) throw new Error(`a server (pid ${running.pid}) is already serving ${dataDir} at ${running.apiUrl}`);
    const cache = !(flags['no-cache'] || process.env.ASOF_CACHE === 'off');
    const meter = !flags['no-meter'];
    const fallback = sharedTokenFallback(fallbackSettings(process.env), process.env[FALLBACK_ENV.token]?.trim() || null);
    const logger = localLogger();
    // The stores open in their threads while this thread loads the server's code (most of a start is either).
    const storeThreads = startStoreThreads(dataDir, { log: io.out, onSqlRestart: warnOfSqlRestarts(logger) });
    // A failure to open is reported where serveLocal awaits it; meanwhile it must not count as unhandled.
    storeThreads.catch(() => undefined);
    const runtime = await import('../local-runtime.ts').catch(async (err: unknown) => {
      await storeThreads.then((threads) => threads.close()).catch(() => undefined);
      throw err;
    });
    const server = await runtime.serveLocal({
      dataDir,
      port,
      host: flags.host ?? '127.0.0.1',
      log: io.out,
      cache,
      meter,
      fallback,
      logger,
      storeThreads,
    });
    if (!meter) io.out('asof: --no-meter: keys are checked, but no call is counted or limited');
    return serveUntilSignalled(server, io);
  },
};

/**
 * `asof serve`'s end: on SIGINT or SIGTERM, close the server (a few seconds whatever is in flight, see
 * LocalServer.close) and end the process: 0 when it closed, 1 when closing failed or took over HARD_STOP_MS, or on
 * a second signal.
 */
export function serveUntilSignalled(server: Pick<LocalServer, 'close'>, io: CliIo): Promise<number> {
  return new Promise<number>((done) => {
    const stop = () => {
      io.out('asof: stopping');
      const hardStop = () => {
        io.err('asof: exiting before the server finished closing');
        process.exit(1);
      };
      setTimeout(hardStop, HARD_STOP_MS).unref();
      process.once('SIGINT', hardStop);
      process.once('SIGTERM', hardStop);
      server
        .close()
        .then(
          () => 0,
          (err: unknown) => {
            io.err(`asof: stopping failed: ${err instanceof Error ? err.message : String(err)}`);
            return 1;
          },
        )
        .then((code) => {
          // What dropped requests left behind (a refund retrying against the closed store) must not hold the process.
          setTimeout(() => process.exit(code), EXIT_AFTER_CLOSE_MS).unref();
          done(code);
        });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
