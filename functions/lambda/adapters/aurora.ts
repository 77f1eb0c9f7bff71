import { Signer } from '@aws-sdk/rds-signer';
import { PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { poolClient } from '#stores/postgres/sql-client.ts';
import { DEFAULT_CASELAW_DATABASE, DEFAULT_CASELAW_USER, ENV, type LambdaEnv, regionOf } from '../env.ts';
import { tracedPg } from './traced-pg.ts';

/** pg to Aurora through RDS Proxy with IAM authentication: a fresh token per new connection, no password held. */
export function caseLawStore(env: LambdaEnv): PostgresCaseLawStore | null {
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
  });
  return new PostgresCaseLawStore(poolClient(pool, { store: 'caselaw' }));
}
