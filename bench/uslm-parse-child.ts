/**
 * Child of bench/uslm-ingest.ts: the baseline under the ingest, the USLM reader alone on the same files (every section
 * read once and its key checked, as the ingest's check pass reads it, no store), in a process of its own so its peak
 * RSS is the reader's. A file the reader or the key check refuses is reported, not fatal. Prints one `RESULT {json}` line.
 *
 *   node --import tsx bench/uslm-parse-child.ts '["/path/usc01@117-80.xml", ...]'
 */
import { readUslmTitle } from '#ingest/uslm.ts';
import { collectionById } from '#law/collections.ts';
import { procStatus } from './proc.ts';

export interface ParsedFile {
  file: string;
  /** Sections read, 0 when refused. */
  sections: number;
  ms: number;
  /** Why the reader refused the file, or null. */
  error: string | null;
}

export interface ParseChildResult {
  files: ParsedFile[];
  peakRssBytes: number;
}

const files = JSON.parse(process.argv[2] ?? '[]') as string[];
const out: ParsedFile[] = [];
for (const file of files) {
  const began = performance.now();
  let sections = 0;
  try {
    // One file may give several editions (an appendix and the court rules it sets out).
    for (const edition of await readUslmTitle(file, { retrievedAt: new Date().toISOString() })) {
      const collection = collectionById(edition.collection);
      const keys = new Set<string>();
      for await (const doc of edition.documents) {
        // The checks the ingest makes of every key, so that a file it would refuse is known before it runs.
        if (!collection.ownsKey(doc.key)) throw new Error(`'${doc.key}' is not a ${collection.name} key`);
        if (keys.has(doc.key)) throw new Error(`key ${doc.key} appears twice`);
        keys.add(doc.key);
        sections++;
      }
    }
    out.push({ file, sections, ms: performance.now() - began, error: null });
  } catch (err) {
    out.push({ file, sections: 0, ms: performance.now() - began, error: err instanceof Error ? err.message : String(err) });
  }
}
const result: ParseChildResult = { files: out, peakRssBytes: procStatus(process.pid).hwm };
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
