import { Logger } from '@aws-lambda-powertools/logger';
import type { PgliteThreadOptions } from '#stores/postgres/pglite-thread-client.ts';

/** `asof serve`'s warning each time PGlite's thread is restarted to stop a statement past its budget. */
export const PGLITE_RESTART_LOG = 'PGlite restarted to stop a statement past its time budget';

/** `asof serve`'s logger: warnings and above unless LOG_LEVEL says otherwise. */
export const localLogger = (): Logger =>
  new Logger({ serviceName: 'asof', logLevel: (process.env.LOG_LEVEL as 'WARN' | undefined) ?? 'WARN' });

/** The restart warning on `asof serve`'s log, with the reopen time. */
export const warnOfSqlRestarts =
  (logger: Logger): NonNullable<PgliteThreadOptions['onRestart']> =>
  (restart) =>
    logger.warn(PGLITE_RESTART_LOG, { ...restart, reopenMs: Math.round(restart.reopenMs) });
