/**
 * One title's checked zip into the store, as `asof fetch uscode` ingests it (fetch-uscode.ts): the XML read out of
 * the zip (its CRC-32 checked again as it is read), ingested with the zip's address as `sourceUrl` and
 * `Online@<release point>` as the label, then the release point's marker for the title written. For a run split over
 * processes (the scheduled fetch in AWS), where the zip was fetched by another one.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { OpsStore } from '#ops/ports.ts';
import type { IngestReport } from '../engine.ts';
import type { IngestRequest } from '../jobs.ts';
import type { ZipRecord } from './download.ts';
import { type IngestedRecord, ingestedMarker } from './fetch-uscode.ts';
import { readTitleZip } from './title-zip.ts';

export interface IngestTitleDeps {
  /** An ingest of law under the store's ingest lease, without the steps after it (Jobs.ingest, afterwards: false). */
  ingest(request: IngestRequest, log: (line: string) => void): Promise<IngestReport[]>;
  markers: Pick<OpsStore, 'putMarker'>;
  now: () => Date;
}

export interface IngestedTitle {
  edition: string;
  sections: number;
  /** Keys whose text changed or that the edition no longer shows. */
  changedKeys: number;
}

/**
 * Ingests the checked zip `zip.file` of title `title` at `releasePoint`; the XML is extracted into `workDir` and
 * removed afterwards. Throws CorruptZipError when the zip fails its check (nothing is ingested then).
 */
export async function ingestTitleZip(
  zip: ZipRecord & { file: string },
  at: { releasePoint: string; title: string },
  workDir: string,
  deps: IngestTitleDeps,
  log: (line: string) => void = () => undefined,
): Promise<IngestedTitle> {
  await mkdir(workDir, { recursive: true });
  const xml = join(workDir, `usc${at.title}@${at.releasePoint}.xml`);
  try {
    await readTitleZip(zip.file, at.title, { extractTo: xml, name: `the zip from ${zip.url}` });
    const [report] = await deps.ingest(
      { kind: 'uslm', files: [xml], label: `Online@${at.releasePoint}`, retrievedAt: zip.retrievedAt, sourceUrl: zip.url },
      log,
    );
    if (!report) throw new Error(`${zip.entry}: the ingest read no edition`);
    const record: IngestedRecord = {
      url: zip.url,
      sha256: zip.sha256,
      bytes: zip.bytes,
      edition: report.edition.id,
      sections: report.documents,
      ingestedAt: deps.now().toISOString(),
    };
    await deps.markers.putMarker(ingestedMarker(at.releasePoint, at.title), JSON.stringify(record));
    return { edition: report.edition.id, sections: report.documents, changedKeys: report.changedKeys + report.absentKeys };
  } finally {
    await rm(xml, { force: true });
  }
}
