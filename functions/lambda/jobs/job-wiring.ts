import { assembleJobs, type Jobs } from '#app/jobs.ts';
import type { CaseLawStore } from '#caselaw/ports.ts';
import type { SearchIndex } from '#law/ports.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { dynamoStores } from '../dynamo-stores.ts';
import { ENV, type LambdaEnv, TABLE_ENV } from '../env.ts';
import type { SourceFiles } from './source-files.ts';

/** What a job's entry brings beyond DynamoDB (passed in, so that a job bundles OpenSearch or S3 only when it uses them). */
export interface JobAdapters {
  search?: (env: LambdaEnv) => SearchIndex | null;
  sources?: (env: LambdaEnv) => SourceFiles | null;
  /** The case-law replica (the ingest job's courtlistener events); opened when first used. */
  caselaw?: (env: LambdaEnv) => CaseLawStore | null;
  /** Default: the function's environment. */
  env?: LambdaEnv;
  /** Default: the clock. */
  now?: () => Date;
}

/**
 * Stands in for the search index when none is bound (a stage without its search domain yet): every call fails as an
 * unreachable store would, so the probe records the corpus unhealthy and the jobs that need the index fail loudly.
 */
function unboundSearch(): SearchIndex {
  const fail = async (): Promise<never> => {
    throw new StoreUnavailableError('search', `no search index is bound to this function (${ENV.searchUrl} is not set)`);
  };
  return { upsert: fail, setValidTo: fail, remove: fail, search: fail, refresh: fail, count: fail, ping: fail };
}

/**
 * The jobs of a job's function (functions/app/jobs.ts, as the local server runs them) on its stores: the versions
 * and ops tables it is always given (refused at module load when missing: a wiring mistake), the format records in
 * the ops table, the search index when one is bound, and the case-law replica, opened on first use.
 */
export function lambdaJobs(adapters: JobAdapters): Jobs {
  const env = adapters.env ?? process.env;
  const { versions, ops, formats } = dynamoStores(env, 'job');
  if (!versions || !ops || !formats) {
    throw new Error(`${!versions ? TABLE_ENV.versions : TABLE_ENV.ops} is not set in the function's environment`);
  }
  let caselaw: CaseLawStore | null | undefined;
  return assembleJobs({
    versions,
    ops,
    formats,
    search: adapters.search?.(env) ?? unboundSearch(),
    caselaw: () => {
      caselaw ??= adapters.caselaw?.(env) ?? null;
      if (!caselaw) throw new Error(`no case-law replica is bound to this function (${ENV.caseLawHost} is not set)`);
      return caselaw;
    },
    now: adapters.now ?? (() => new Date()),
  });
}
