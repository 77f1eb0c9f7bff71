import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { splitRefusals, waitingLine } from '#formats/validate.ts';
import type { IngestReport } from '#ingest/engine.ts';
import { ENV } from '../env.ts';
import { type JobContext, JobRefusedError, jobLambda } from '../job-entry.ts';
import { JOB_METRICS } from '../metric-names.ts';
import { localIngestRequest, localPaths, parseIngestEvent } from './ingest-event.ts';
import { type JobAdapters, lambdaJobs } from './job-wiring.ts';
import { type SourceFiles, SourceNotFoundError } from './source-files.ts';

/**
 * An ingest run: the event names the source kind and the files in the sources bucket (ingest-event.ts); they are
 * fetched to local files and ingested as `asof ingest` does, followed by the same steps (functions/app/jobs.ts: the
 * format records validated against the new corpus, coverage refreshed, the audit). A courtlistener event loads the
 * case-law replica instead, as `asof ingest courtlistener` does. IngestSucceeded or IngestFailed is counted on every
 * run, a refused event included.
 */
export function ingestHandler(adapters: JobAdapters) {
  const jobs = lambdaJobs(adapters);
  const env = adapters.env ?? process.env;
  const sources = adapters.sources?.(env) ?? null;

  const refusedWhenMissing = (err: unknown) => {
    throw err instanceof SourceNotFoundError ? new JobRefusedError(`ingest event refused: ${err.message}`) : err;
  };

  /** CourtListener records from the bucket into the case-law replica (the CLI's `asof ingest courtlistener`). */
  async function ingestCaseLaw(paths: readonly string[], files: SourceFiles, { logger }: JobContext) {
    if (!adapters.caselaw) throw new Error(`no case-law replica is bound to this function (${ENV.caseLawHost} is not set)`);
    const local = await localPaths(paths, files).catch(refusedWhenMissing);
    const report = await jobs.ingestCaseLaw(local, (line) => logger.info(line));
    return { kind: 'courtlistener' as const, from: files.origin, report };
  }

  async function ingest(event: unknown, ctx: JobContext) {
    const { logger, metrics } = ctx;
    const parsed = parseIngestEvent(event);
    if (!sources) throw new Error(`no sources bucket is bound to this function (${ENV.sourcesBucket} is not set)`);
    try {
      if (parsed.kind === 'courtlistener') return await ingestCaseLaw(parsed.paths, sources, ctx);
      const request = await localIngestRequest(parsed, sources).catch(refusedWhenMissing);
      const { reports, formats, audit } = await jobs.ingest(request, (line) => logger.info(line));
      const { waiting, refused } = splitRefusals(formats?.refused ?? []);
      if (waiting.records.length) logger.info(`format records: ${waitingLine(waiting)}`, { ...waiting });
      for (const p of refused) logger.warn('format record refused', { file: p.file, field: p.field, problem: p.message });
      const sum = (of: (r: IngestReport) => number) => reports.reduce((n, r) => n + of(r), 0);
      const counts = {
        [JOB_METRICS.ingestEditions]: reports.length,
        [JOB_METRICS.ingestDocuments]: sum((r) => r.documents),
        [JOB_METRICS.ingestChangedKeys]: sum((r) => r.changedKeys),
        [JOB_METRICS.ingestVersionsWritten]: sum((r) => r.writes.put),
        [JOB_METRICS.formatRecordsRefused]: formats?.refused.length ?? 0,
      };
      for (const [name, value] of Object.entries(counts)) metrics.addMetric(name, MetricUnit.Count, value);
      return {
        kind: parsed.kind,
        from: sources.origin,
        editions: reports.map((r) => ({
          edition: r.edition.id,
          label: r.edition.label,
          documents: r.documents,
          changedKeys: r.changedKeys,
          unchanged: r.unchanged,
          writes: r.writes,
        })),
        formatRecords: { valid: formats?.loaded.length ?? 0, refused: formats?.refused.length ?? 0 },
        audit,
      };
    } finally {
      await sources.release();
    }
  }

  return jobLambda('ingest', async (event: unknown, ctx) => {
    try {
      const result = await ingest(event, ctx);
      ctx.metrics.addMetric(JOB_METRICS.ingestSucceeded, MetricUnit.Count, 1);
      return result;
    } catch (err) {
      ctx.metrics.addMetric(JOB_METRICS.ingestFailed, MetricUnit.Count, 1);
      throw err;
    }
  });
}
