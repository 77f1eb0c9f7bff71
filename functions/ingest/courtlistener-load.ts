/**
 * `asof ingest courtlistener PATH...`: CourtListener records, in the shapes courtlistener-api.ts reads, into the
 * replica. A path is a file or a folder of `.json` files; each file's shape says what it is. Re-running a load
 * changes nothing (every write is an upsert by primary key).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CaseLawStore, ReplicaBatch } from '#caselaw/ports.ts';
import { type ApiV3Record, courtsFromFixture, rowsFromApiV3, rowsFromNetwork } from './courtlistener-api.ts';

export interface CourtListenerLoadReport {
  files: number;
  courts: number;
  clusters: number;
  citations: number;
  opinions: number;
  opinionsCited: number;
  /** The newest retrieval date the records state (the replica's dataAsOf moves to it). */
  dataAsOf: string | null;
  /** Citations a record printed that are not in a form the extractor reads. */
  skipped: string[];
}

async function jsonFiles(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  return (await readdir(path))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(path, f));
}

function batchOf(file: string, data: unknown, report: CourtListenerLoadReport): ReplicaBatch {
  if (Array.isArray(data) && data.every((r) => (r as { model?: unknown }).model === 'search.court'))
    return { courts: courtsFromFixture(data) };
  if (data && typeof data === 'object' && Array.isArray((data as { opinion_clusters?: unknown }).opinion_clusters))
    return rowsFromNetwork(data as Parameters<typeof rowsFromNetwork>[0]);
  if (data && typeof data === 'object' && 'CL_opinion_id' in data && 'CL_opinion_cluster' in data) {
    const { batch, retrievedOn, skipped } = rowsFromApiV3(data as ApiV3Record);
    if (retrievedOn && (!report.dataAsOf || retrievedOn > report.dataAsOf)) report.dataAsOf = retrievedOn;
    report.skipped.push(...skipped.map((s) => `${file}: ${s}`));
    return batch;
  }
  throw new Error(`${file}: not a CourtListener court fixture, API v3 opinion record, or opinion_clusters listing`);
}

export async function loadCourtListenerFiles(store: CaseLawStore, paths: readonly string[]): Promise<CourtListenerLoadReport> {
  const report: CourtListenerLoadReport = {
    files: 0,
    courts: 0,
    clusters: 0,
    citations: 0,
    opinions: 0,
    opinionsCited: 0,
    dataAsOf: null,
    skipped: [],
  };
  const batches: ReplicaBatch[] = [];
  for (const path of paths) {
    for (const file of await jsonFiles(path)) {
      batches.push(batchOf(file, JSON.parse(await readFile(file, 'utf8')), report));
      report.files++;
    }
  }
  // Every file is read and understood before the first write: a file that is not CourtListener's writes nothing.
  // Courts first, so that a cluster's court is there when it is read.
  batches.sort((a, b) => Number(!a.courts) - Number(!b.courts));
  for (const batch of batches) {
    await store.write(batch);
    report.courts += batch.courts?.length ?? 0;
    report.clusters += batch.clusters?.length ?? 0;
    report.citations += batch.citations?.length ?? 0;
    report.opinions += batch.opinions?.length ?? 0;
    report.opinionsCited += batch.opinionsCited?.length ?? 0;
  }
  if (report.dataAsOf) await store.setDataAsOf(report.dataAsOf);
  return report;
}
