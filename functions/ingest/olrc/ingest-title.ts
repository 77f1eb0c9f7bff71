/**
 * One title's checked zip into the store, as `asof fetch uscode` and the scheduled fetch in AWS ingest it: read by the
 * USLM reader straight from the zip (the release point taken from the zip's OLRC name; the reader checks the CRC-32
 * again before anything is written), ingested with the zip's address as `sourceUrl`, then the release point's marker
 * for the title written.
 */
import type { OpsStore } from '#ops/ports.ts';
import type { IngestReport } from '../engine.ts';
import type { IngestRequest } from '../jobs.ts';
import type { ZipRecord } from './download.ts';

/** The ops-store marker that says a title of a release point is ingested (its value: IngestedRecord as JSON). */
export const ingestedMarker = (releasePoint: string, title: string): string => `olrc-usc:${releasePoint}:${title}`;

export interface IngestedRecord {
  url: string;
  sha256: string;
  bytes: number;
  edition: string;
  sections: number;
  ingestedAt: string;
}

export interface IngestTitleDeps {
  /** An ingest of law under the store's ingest lease, without the steps after it (Jobs.ingest, afterwards: false). */
  ingest(request: IngestRequest, log: (line: string) => void): Promise<IngestReport[]>;
  markers: Pick<OpsStore, 'putMarker'>;
  now: () => Date;
}

export interface IngestedTitle {
  edition: string;
  /** Sections of every edition the file gives (an appendix may give its court rules as a second one). */
  sections: number;
  /** Keys whose text changed or that the edition no longer shows. */
  changedKeys: number;
}

/**
 * Ingests the zip `zip.file` (named as OLRC names it) of title `title` at `releasePoint`, checked by the caller: the
 * download checks it (readTitleZip) before it counts as complete, and the AWS step reads it back from S3 against its
 * recorded SHA-256.
 */
export async function ingestTitleZip(
  zip: ZipRecord & { file: string },
  at: { releasePoint: string; title: string },
  deps: IngestTitleDeps,
  log: (line: string) => void = () => undefined,
): Promise<IngestedTitle> {
  const reports = await deps.ingest({ kind: 'uslm', files: [zip.file], retrievedAt: zip.retrievedAt, sourceUrl: zip.url }, log);
  const first = reports[0];
  if (!first) throw new Error(`${zip.entry}: the ingest read no edition`);
  const sections = reports.reduce((n, r) => n + r.documents, 0);
  const record: IngestedRecord = {
    url: zip.url,
    sha256: zip.sha256,
    bytes: zip.bytes,
    edition: first.edition.id,
    sections,
    ingestedAt: deps.now().toISOString(),
  };
  await deps.markers.putMarker(ingestedMarker(at.releasePoint, at.title), JSON.stringify(record));
  return { edition: first.edition.id, sections, changedKeys: reports.reduce((n, r) => n + r.changedKeys + r.absentKeys, 0) };
}
