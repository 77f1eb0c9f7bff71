/**
 * `asof ingest courtlistener PATH...`: CourtListener records, in the shapes courtlistener-api.ts reads, into the
 * replica. A path is a file or a folder of `.json` / `.jsonl` files (JSON Lines: one API v3 record a line); each
 * file's shape says what it is. Re-running a load changes nothing (every write is an upsert by primary key).
 *
 * What several files say of one cluster is merged before anything is written: a field one file leaves empty never
 * blanks what another gives (the citation network names its clusters, a fixture gives their court). A cluster no
 * record gives a citation for takes the citations CourtListener linked to its opinion in the opinions citing it.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type CaseLawStore, type CitationRow, type ClusterRow, formKey, type ReplicaBatch } from '#caselaw/ports.ts';
import {
  type ApiV3Record,
  type ClusterFacts,
  clusterFactsFromFixture,
  courtsFromFixture,
  linkedCitationRow,
  type MarkedCitation,
  rowsFromApiV3,
  rowsFromNetwork,
} from './courtlistener-api.ts';

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
    .filter((f) => f.endsWith('.json') || f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(path, f));
}

interface Reading {
  facts: ClusterFacts[];
  marked: MarkedCitation[];
}

function batchOf(file: string, data: unknown, report: CourtListenerLoadReport, reading: Reading): ReplicaBatch {
  if (Array.isArray(data) && data.every((r) => (r as { model?: unknown }).model === 'search.court'))
    return { courts: courtsFromFixture(data) };
  if (Array.isArray(data) && data.length && data.every((r) => /^search\./.test(String((r as { model?: unknown }).model)))) {
    reading.facts.push(...clusterFactsFromFixture(data));
    return { courts: courtsFromFixture(data) };
  }
  if (data && typeof data === 'object' && Array.isArray((data as { opinion_clusters?: unknown }).opinion_clusters))
    return rowsFromNetwork(data as Parameters<typeof rowsFromNetwork>[0]);
  if (data && typeof data === 'object' && 'CL_opinion_id' in data && 'CL_opinion_cluster' in data) {
    const { batch, retrievedOn, skipped, marked } = rowsFromApiV3(data as ApiV3Record);
    if (retrievedOn && (!report.dataAsOf || retrievedOn > report.dataAsOf)) report.dataAsOf = retrievedOn;
    report.skipped.push(...skipped.map((s) => `${file}: ${s}`));
    reading.marked.push(...marked);
    return batch;
  }
  throw new Error(`${file}: not a CourtListener court fixture, API v3 opinion record, or opinion_clusters listing`);
}

function parsedRecords(file: string, text: string): unknown[] {
  if (!file.endsWith('.jsonl')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new Error(`${file}: line ${i + 1} is not JSON`);
      }
    });
}

const filled = (a: ClusterRow, b: ClusterRow): ClusterRow => ({
  id: a.id,
  docketId: b.docketId ?? a.docketId,
  courtId: b.courtId ?? a.courtId,
  caseName: b.caseName || a.caseName,
  caseNameFull: b.caseNameFull || a.caseNameFull,
  caseNameShort: b.caseNameShort || a.caseNameShort,
  dateFiled: b.dateFiled ?? a.dateFiled,
  slug: b.slug || a.slug,
  precedentialStatus: b.precedentialStatus || a.precedentialStatus,
  citationCount: Math.max(a.citationCount, b.citationCount),
  judges: b.judges || a.judges,
});

/** One row per cluster across every batch (and the fixtures' facts on it), so no write blanks what another gave. */
function mergeClusters(batches: ReplicaBatch[], facts: readonly ClusterFacts[]): void {
  const merged = new Map<number, ClusterRow>();
  for (const c of batches.flatMap((b) => b.clusters ?? [])) merged.set(c.id, merged.has(c.id) ? filled(merged.get(c.id)!, c) : c);
  for (const f of facts) {
    const c = merged.get(f.id);
    if (!c) continue; // facts of a cluster no record names: nothing to say them of
    merged.set(f.id, {
      ...c,
      courtId: c.courtId ?? f.courtId ?? null,
      precedentialStatus: c.precedentialStatus || (f.precedentialStatus ?? ''),
    });
  }
  for (const b of batches) if (b.clusters) b.clusters = b.clusters.map((c) => merged.get(c.id)!);
}

/** Citations for the clusters no record gives one: those CourtListener linked to their opinion where it is cited. */
function linkedCitations(batches: readonly ReplicaBatch[], marked: readonly MarkedCitation[]): Array<CitationRow & { clusterId: number }> {
  const cited = new Set(batches.flatMap((b) => b.citations ?? []).map((c) => c.clusterId));
  const clusterOf = new Map(batches.flatMap((b) => b.opinions ?? []).map((o) => [o.id, o.clusterId] as const));
  const rows = new Map<string, CitationRow & { clusterId: number }>();
  for (const m of marked) {
    const clusterId = clusterOf.get(m[0]);
    if (clusterId === undefined || cited.has(clusterId)) continue;
    const row = linkedCitationRow(m);
    if (row) rows.set(`${clusterId} ${formKey(row)}`, { ...row, clusterId });
  }
  return [...rows.values()];
}

const unique = <T>(rows: readonly T[] | undefined, key: (row: T) => string): T[] => [
  ...new Map((rows ?? []).map((r) => [key(r), r] as const)).values(),
];

/** The batches as one, each row once (the last given wins; the clusters are merged already). */
function combined(batches: readonly ReplicaBatch[]): ReplicaBatch {
  return {
    courts: unique(
      batches.flatMap((b) => b.courts ?? []),
      (c) => c.id,
    ),
    dockets: unique(
      batches.flatMap((b) => b.dockets ?? []),
      (d) => String(d.id),
    ),
    clusters: unique(
      batches.flatMap((b) => b.clusters ?? []),
      (c) => String(c.id),
    ),
    citations: unique(
      batches.flatMap((b) => b.citations ?? []),
      (c) => `${c.clusterId} ${formKey(c)}`,
    ),
    opinions: unique(
      batches.flatMap((b) => b.opinions ?? []),
      (o) => String(o.id),
    ),
    opinionsCited: unique(
      batches.flatMap((b) => b.opinionsCited ?? []),
      (e) => `${e.citingOpinionId} ${e.citedOpinionId}`,
    ),
  };
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
  const reading: Reading = { facts: [], marked: [] };
  for (const path of paths) {
    for (const file of await jsonFiles(path)) {
      for (const data of parsedRecords(file, await readFile(file, 'utf8'))) batches.push(batchOf(file, data, report, reading));
      report.files++;
    }
  }
  mergeClusters(batches, reading.facts);
  const linked = linkedCitations(batches, reading.marked);
  if (linked.length) batches.push({ citations: linked });
  // Every file is read and understood before the first write: a file that is not CourtListener's writes nothing.
  // Courts first, so that a cluster's court is there when it is read; the rest as one batch (one statement per table
  // and chunk, so a folder of records loads in a few statements rather than a few per record).
  for (const batch of [combined(batches.filter((b) => b.courts)), combined(batches.filter((b) => !b.courts))]) {
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
