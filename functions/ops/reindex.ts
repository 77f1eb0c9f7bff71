import { type SearchDocument, type SearchIndex, toSearchDocument, type VersionStore } from '#law/ports.ts';

const CHUNK = 100;

/** Re-send every stored version to the search index (idempotent upserts): repairs an index an interrupted ingest left behind. */
export async function reindex(
  deps: { versions: VersionStore; search: SearchIndex },
  log: (line: string) => void = () => undefined,
): Promise<{ documents: number }> {
  let chunk: SearchDocument[] = [];
  let documents = 0;
  for await (const v of deps.versions.scanVersions()) {
    chunk.push(toSearchDocument(v));
    if (chunk.length >= CHUNK) {
      await deps.search.upsert(chunk);
      documents += chunk.length;
      chunk = [];
    }
  }
  if (chunk.length) await deps.search.upsert(chunk);
  documents += chunk.length;
  await deps.search.refresh();
  log(`reindexed ${documents} versions`);
  return { documents };
}
