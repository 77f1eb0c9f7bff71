import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readAppendixText } from '#ingest/appendix-text.ts';
import { readDcManifest } from '#ingest/dc-code.ts';
import type { FileIngestRequest } from '#ingest/jobs.ts';
import { APPENDIX_TEXT, readRuleSet } from '#ingest/rules.ts';
import type { SourceDocument, SourceEdition } from '#ingest/source.ts';
import { readStateCode } from '#ingest/state-codes/editions.ts';
import { readUslmTitle } from '#ingest/uslm.ts';
import { collectionById } from '#law/collections.ts';
import { SAMPLE_DIR } from '#local/local-runtime.ts';

/** One section of the bundled sample as an edition shows it, with where it lives. */
export interface SampleDocument extends SourceDocument {
  jurisdiction: string;
  collection: string;
  editionDate: string;
}

/**
 * Every document of every edition of the bundled sample corpus (data/sample), read with the product's own source
 * connectors from the manifest `asof serve` ingests on a first start. Nothing is written anywhere.
 */
export async function readSampleCorpus(): Promise<SampleDocument[]> {
  const manifest = JSON.parse(await readFile(join(SAMPLE_DIR, 'sources.json'), 'utf8')) as {
    retrievedAt: string;
    ingest: FileIngestRequest[];
  };
  const at = (p: string) => join(SAMPLE_DIR, p);
  const retrievedAt = manifest.retrievedAt;
  const editions: SourceEdition[] = [];
  for (const req of manifest.ingest) {
    if (req.kind === 'uslm') editions.push(...(await Promise.all(req.files.map((f) => readUslmTitle(at(f), { retrievedAt })))).flat());
    else if (req.kind === 'dc-code') editions.push(...(await readDcManifest(at(req.manifest), { retrievedAt })));
    else if (req.kind === 'state-code') editions.push(...(await readStateCode(req.state, req.paths.map(at), retrievedAt)));
    else if (req.set === APPENDIX_TEXT) editions.push(...(await readAppendixText(req.paths.map(at), { retrievedAt })));
    else editions.push(...(await readRuleSet(req.set ?? 'frap', req.paths.map(at), { retrievedAt })));
  }
  const out: SampleDocument[] = [];
  for (const edition of editions) {
    const { jurisdiction } = collectionById(edition.collection);
    for await (const doc of edition.documents)
      out.push({ ...doc, jurisdiction, collection: edition.collection, editionDate: edition.date });
  }
  return out;
}
