import { Signer } from '@aws-sdk/rds-signer';
import { PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { DEFAULT_SQL_TIMEOUTS, poolClient, poolTimeouts, type StatementBudget } from '#stores/postgres/sql-client.ts';
import { DEFAULT_CASELAW_DATABASE, DEFAULT_CASELAW_USER, ENV, type LambdaEnv, regionOf } from '../env.ts';
import { tracedPg } from './traced-pg.ts';

/**
 * pg to Aurora through RDS Proxy with IAM authentication: a fresh token per new connection, no password held. Every
 * statement of the function runs under the server's statement_timeout of `budget` (a connection parameter, not a SET,
 * which would pin the proxy's connection): the request budget in the route functions, the job budget in the ingest job.
 */
function openCaseLawStore(env: LambdaEnv, budget: StatementBudget): PostgresCaseLawStore | null {
  const host = env[ENV.caseLawHost];
  if (!host) return null;
  const port = Number(env[ENV.caseLawPort] ?? 5432);
  const user = env[ENV.caseLawUser] ?? DEFAULT_CASELAW_USER;
  const signer = new Signer({ hostname: host, port, username: user, region: regionOf(env) });
  const pool = new tracedPg.Pool({
    host,
    port,
    user,
    database: env[ENV.caseLawDatabase] ?? DEFAULT_CASELAW_DATABASE,
    password: () => signer.getAuthToken(),
    ssl: { rejectUnauthorized: true },
    max: 2,
    idleTimeoutMillis: 60_000,
    connectionTimeoutMillis: 3_000,
    ...poolTimeouts(DEFAULT_SQL_TIMEOUTS[budget]),
  });
  return new PostgresCaseLawStore(poolClient(pool, { store: 'caselaw' }));
}

/** The replica as the case-law routes read it (and the citation lookup's backfill writes it). */
export const caseLawStore = (env: LambdaEnv): PostgresCaseLawStore | null => openCaseLawStore(env, 'request');

/** The replica as the ingest job loads it. */
export const caseLawJobStore = (env: LambdaEnv): PostgresCaseLawStore | null => openCaseLawStore(env, 'job');
