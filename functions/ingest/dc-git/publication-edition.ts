/**
 * One publication of the D.C. Code as an edition: it speaks for the sections it added, modified or deleted (scope
 * `keys`), shows the added and modified ones, and so ends the interval of each deleted one. A renamed file is a
 * deletion and an addition: a renumbered section ends under its old number and starts under its new one, and a
 * file renamed under the same number (`[47-1099.13]` → `47-1099.13`) is a modification of one key.
 */
import git from 'isomorphic-git';
import { parseDcSection } from '../dc-code.ts';
import type { SourceDocument, SourceEdition } from '../source.ts';
import { readArgs } from './git-read-fs.ts';
import { packsIn } from './packs.ts';
import { type Publication, publicationAt, publicationChanges, type SectionChange } from './publications.ts';
import type { DcRepository } from './repository.ts';

export interface PublicationEditionOptions {
  retrievedAt: string;
  /** Called with the number of sections read so far as the documents are read (the engine reads them once). */
  onRead?: (read: number, total: number) => void;
}

type Repo = Pick<DcRepository, 'gitdir' | 'cache' | 'origin'>;

export function publicationEdition(
  repo: Repo,
  publication: Publication,
  changes: readonly SectionChange[],
  options: PublicationEditionOptions,
): SourceEdition {
  const shown = changes.filter((c) => c.blob !== null);
  const count = (kind: SectionChange['change']) => changes.filter((c) => c.change === kind).length;
  return {
    collection: 'dc-code',
    date: publication.date,
    label: publication.date,
    temporalBasis: 'compiled-edition',
    retrievedAt: options.retrievedAt,
    // The first publication shows the whole Code: it speaks for every key (and its record stays small, where the
    // list of its 23,000 keys would come near DynamoDB's 400 KB item limit). Later ones speak for what they changed.
    scope:
      publication.previous === null
        ? { kind: 'prefix', prefix: '' }
        : { kind: 'keys', keys: [...new Set(changes.map((c) => c.key))].sort() },
    source:
      `${repo.origin} @ ${publication.commit} (${publication.subject}): ` +
      `${count('A')} section files added, ${count('M')} modified, ${count('D')} deleted`,
    documents: { [Symbol.asyncIterator]: () => readSections(repo, shown, options.onRead) },
  };
}

async function* readSections(
  repo: Repo,
  files: readonly SectionChange[],
  onRead?: PublicationEditionOptions['onRead'],
): AsyncGenerator<SourceDocument> {
  let read = 0;
  for (const file of files) {
    const { blob } = await git.readBlob({ ...readArgs(repo), oid: file.blob! });
    const doc = parseDcSection(Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength).toString('utf8'), file.path);
    // The file name is the number the Council publishes the section under; the XML's own number is the same save
    // for a few slips of the source (`<num>IV</num>` in 28-3871.xml), which the address overrules.
    yield { ...doc, key: file.key };
    onRead?.(++read, files.length);
  }
}

/** The ingest request of publications of the repository (`asof fetch dc-code` sends a few at a time, see fetch-dc-code.ts). */
export interface DcPublicationRequest {
  kind: 'dc-code-git';
  /** The repository's git folder (absolute), as openDcRepository left it. */
  gitdir: string;
  /** Publication commits on the default branch's line. */
  commits: string[];
  /** What `--repo` named, for the edition record. */
  origin: string;
  retrievedAt?: string;
}

const PROGRESS_EVERY_MS = 5_000;
/**
 * isomorphic-git's cache of the last repository read (its pack index and pack): one run's publications share it, for
 * as long as the repository has the same packs (a fetch between two runs adds one).
 */
let lastCache: { gitdir: string; packs: string; cache: object } | null = null;

export async function readDcPublicationRequest(
  req: DcPublicationRequest,
  retrievedAt: string,
  log: (line: string) => void,
): Promise<SourceEdition[]> {
  const packs = (await packsIn(req.gitdir)).join(' ');
  if (lastCache?.gitdir !== req.gitdir || lastCache.packs !== packs) lastCache = { gitdir: req.gitdir, packs, cache: {} };
  const repo = { gitdir: req.gitdir, cache: lastCache.cache, origin: req.origin };
  const editions: SourceEdition[] = [];
  for (const commit of req.commits) editions.push(await editionAt(repo, commit, retrievedAt, log));
  return editions;
}

async function editionAt(repo: Repo, commit: string, retrievedAt: string, log: (line: string) => void): Promise<SourceEdition> {
  const publication = await publicationAt(repo, commit);
  const changes = await publicationChanges(repo, publication);
  let shown = Date.now();
  return publicationEdition(repo, publication, changes, {
    retrievedAt,
    onRead: (read, total) => {
      if (Date.now() - shown < PROGRESS_EVERY_MS || read === total) return;
      shown = Date.now();
      log(`  ${publication.date}: ${read} of ${total} sections read`);
    },
  });
}
