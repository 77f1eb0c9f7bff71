/**
 * PostgreSQL clusters as the setup job sees Aurora: a connection as the admin user to any of its databases.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { type AdminConnect, MAINTENANCE_DATABASE } from '#stores/postgres/caselaw-setup.ts';
import { connectPostgres, pgliteClient } from '#stores/postgres/sql-client.ts';

/** What tests created on a shared server (roles are cluster-wide), to drop at the end. */
export interface MadeNames {
  databases: Set<string>;
  roles: Set<string>;
}

export interface Cluster {
  connect: AdminConnect;
  dispose(): Promise<void>;
}

/**
 * PGlite: one data directory, one database open at a time (an instance per database, as PGlite serves one), so
 * connecting to another database closes the instance of the last.
 */
export async function pgliteCluster(): Promise<Cluster> {
  const dataDir = await mkdtemp(join(tmpdir(), 'asof-setup-'));
  let open: PGlite | undefined;
  return {
    connect: async (database) => {
      if (open && !open.closed) await open.close();
      open = await PGlite.create({ dataDir, database });
      return pgliteClient(open, { store: 'caselaw', owned: true });
    },
    dispose: async () => {
      if (open && !open.closed) await open.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The server: a pool per connection, dropped at the end with every database and role the tests made. */
export function serverCluster(url: string, made: MadeNames): Cluster {
  const urlFor = (database: string) => Object.assign(new URL(url), { pathname: `/${database}` }).toString();
  return {
    connect: async (database) => connectPostgres(urlFor(database), { store: 'caselaw', max: 1 }),
    dispose: async () => {
      const admin = connectPostgres(urlFor(MAINTENANCE_DATABASE), { max: 1 });
      try {
        for (const db of made.databases) await admin.exec(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
        for (const role of made.roles) await admin.exec(`DROP ROLE IF EXISTS "${role}"`);
      } finally {
        await admin.close();
      }
    },
  };
}
