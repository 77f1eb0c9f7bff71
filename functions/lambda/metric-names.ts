/** The CloudWatch namespace of every metric the functions emit (routes and jobs); alarms and dashboards read it from here. */
export const METRICS_NAMESPACE = 'asof';

/** Powertools adds the service name (`asof`, given to every Metrics instance) as a dimension of every metric. */
const SERVICE_DIMENSION = { service: 'asof' } as const;

/** What every route and page function counts per answer (dimension `route`: the route id, or `page-<id>`). */
export const ANSWER_METRIC = { success: 'Success', clientError: 'ClientError', serverError: 'ServerError' } as const;

/** The scheduled jobs; each is one function (lib/scheduled-jobs.ts) and the value of its metrics' `job` dimension. */
export const JOB_NAMES = ['probe', 'coverage', 'audit', 'ingest'] as const;
export type JobName = (typeof JOB_NAMES)[number];

/**
 * The metrics the jobs emit, for the alarms and the dashboard. Every one is in METRICS_NAMESPACE with exactly the
 * dimensions `jobMetricDimensions(job)` gives; a job emits only its own.
 */
export const JOB_METRICS = {
  namespace: METRICS_NAMESPACE,
  /** Every job, once per run: it finished, or it failed (thrown, or its event refused). */
  succeeded: 'JobSucceeded',
  failed: 'JobFailed',
  /** An event the job can never run as given (it is not retried); also counted in JobFailed. */
  refused: 'JobRefused',
  /** probe, every run: 1 when law can be served, 0 when not. No datapoint in a period = no recent probe. */
  corpusHealthy: 'CorpusHealthy',
  /** audit: the checks of the run over everything that failed, and that warned. */
  auditFailedChecks: 'AuditFailedChecks',
  auditWarnedChecks: 'AuditWarnedChecks',
  /** ingest, once per run: one of these two is 1. */
  ingestSucceeded: 'IngestSucceeded',
  ingestFailed: 'IngestFailed',
  /** ingest, after a run that succeeded: what it read and wrote. */
  ingestEditions: 'IngestEditions',
  ingestDocuments: 'IngestDocuments',
  ingestChangedKeys: 'IngestChangedKeys',
  ingestVersionsWritten: 'IngestVersionsWritten',
  /** ingest: bundled format records that no longer validate against the corpus (they are not served). */
  formatRecordsRefused: 'FormatRecordsRefused',
} as const;

/** The dimensions of a job's metrics, exactly as emitted (an alarm must name all of them to match). */
export const jobMetricDimensions = (job: JobName): Record<string, string> => ({ ...SERVICE_DIMENSION, job });
