/**
 * The Council's repository, wherever `--repo` points: a git URL (cloned, then fetched, into the sources cache), a
 * local clone (read in place), or a bundle file (imported once into the sources cache). Everything is read with
 * isomorphic-git (pure JavaScript: the AWS job has no git binary), so the same code reads it here and in Lambda.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { NotABundleError, readBundleHeader } from './bundle.ts';
import { packsIn } from './packs.ts';
import { isGitUrl } from './remote.ts';

export interface DcRepository {
  gitdir: string;
  /** The default branch's commit: its first-parent line is the record of publications. */
  head: string;
  /** What was read, for the edition records (`--repo` as given, or the remote's address). */
  origin: string;
  /** isomorphic-git's object cache, shared by every read of one run (it holds the pack indexes). */
  cache: object;
}

/** The repository could not be read: nothing was ingested. */
export class RepositoryError extends Error {
  override readonly name = 'RepositoryError';
}

type Log = (line: string) => void;

export async function openDcRepository(repo: string, cacheDir: string, log: Log = () => undefined): Promise<DcRepository> {
  try {
    if (isGitUrl(repo)) return await openRemote(repo, cacheDir, log);
    const info = await stat(repo).catch(() => null);
    if (!info) throw new RepositoryError(`no such file or directory: ${repo}`);
    if (info.isDirectory()) return await openClone(repo);
    return await openBundle(repo, cacheDir, log);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new RepositoryError(`cannot read the D.C. Code repository at ${repo}: ${why}`);
  }
}

async function openClone(dir: string): Promise<DcRepository> {
  const dotGit = join(dir, '.git');
  const gitdir = (await stat(dotGit).catch(() => null))?.isDirectory() ? dotGit : dir;
  if (!(await stat(join(gitdir, 'objects')).catch(() => null))) throw new Error('not a git repository (no .git, no objects/)');
  return { gitdir, head: await headOf(gitdir), origin: dir, cache: {} };
}

/** A bundle is imported once per content (its SHA-256 names the folder); a second run reads that import. */
async function openBundle(file: string, cacheDir: string, log: Log): Promise<DcRepository> {
  let header: Awaited<ReturnType<typeof readBundleHeader>>;
  try {
    header = await readBundleHeader(file);
  } catch (err) {
    if (err instanceof NotABundleError) throw new Error(`${err.message} (give a git URL, a clone's folder or a bundle file)`);
    throw err;
  }
  const digest = await sha256Of(file);
  const gitdir = join(cacheDir, `bundle-${digest.slice(0, 16)}.git`);
  const cache = {};
  if ((await readFile(join(gitdir, 'HEAD'), 'utf8').catch(() => '')).trim() !== header.head) {
    log(`importing ${file} (git bundle, ${header.refs.size} refs) into ${gitdir}`);
    const started = Date.now();
    const partial = `${gitdir}.partial-${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await git.init({ fs, gitdir: partial, bare: true });
    const pack = join(partial, 'objects', 'pack', 'pack-bundle.pack');
    await mkdir(join(partial, 'objects', 'pack'), { recursive: true });
    await pipeline(fs.createReadStream(file, { start: header.packOffset }), fs.createWriteStream(pack));
    let shown = Date.now();
    await git.indexPack({
      fs,
      dir: partial,
      gitdir: partial,
      filepath: 'objects/pack/pack-bundle.pack',
      cache,
      onProgress: ({ phase, loaded, total }) => {
        if (Date.now() - shown < 5_000) return;
        shown = Date.now();
        log(`  ${phase}: ${loaded} of ${total} objects`);
      },
    });
    // The commit HEAD names, detached: the line of publications is read from it, not from a branch name.
    await writeFile(join(partial, 'HEAD'), `${header.head}\n`);
    await rm(gitdir, { recursive: true, force: true });
    await rename(partial, gitdir);
    log(`  imported in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return { gitdir, head: await headOf(gitdir), origin: file, cache };
}

/** Cloned into the sources cache once (into a partial folder, renamed when complete), fetched on later runs. */
async function openRemote(url: string, cacheDir: string, log: Log): Promise<DcRepository> {
  const gitdir = join(cacheDir, `remote-${createHash('sha256').update(url).digest('hex').slice(0, 16)}.git`);
  const cache = {};
  if (await stat(join(gitdir, 'HEAD')).catch(() => null)) {
    log(`fetching ${url} into ${gitdir}`);
    await fetchDefaultBranch(gitdir, url, log, cache);
  } else {
    log(`cloning ${url} into ${gitdir}`);
    const partial = `${gitdir}.partial-${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await fetchDefaultBranch(partial, url, log, cache);
    await rename(partial, gitdir);
  }
  return { gitdir, head: await headOf(gitdir), origin: url, cache };
}

export interface Fetched {
  /** The remote's default branch, now the repository's HEAD (detached). */
  head: string;
  /** The packfile the fetch wrote (`pack-<sha1>`, its .pack and .idx in objects/pack); null when the remote sent nothing new. */
  pack: string | null;
}

/**
 * Fetches the remote's default branch into the bare repository `gitdir` (made when missing) over git's smart HTTP
 * protocol. The commit HEAD names is offered to the remote as held (isomorphic-git offers the ref it is fetching, and
 * would offer nothing from a detached HEAD unless asked for `HEAD` itself), so the remote sends only the objects that
 * came after it: one self-contained packfile (isomorphic-git asks for no thin pack).
 */
export async function fetchDefaultBranch(gitdir: string, url: string, log: Log, cache: object = {}): Promise<Fetched> {
  if (!(await stat(join(gitdir, 'HEAD')).catch(() => null))) await git.init({ fs, gitdir, bare: true });
  // The fetch records the remote's refs under refs/remotes/origin/, by the remote's refspec.
  await git.addRemote({ fs, gitdir, remote: 'origin', url, force: true });
  const before = new Set(await packsIn(gitdir));
  const fetched = await git.fetch({
    fs,
    http,
    gitdir,
    url,
    ref: 'HEAD',
    singleBranch: true,
    tags: false,
    onProgress: progressLog(log),
    cache,
  });
  if (!fetched.fetchHead) throw new Error('the remote sent no default branch');
  // The commit the remote's HEAD names, detached: the line of publications is read from it, not from a branch name.
  await writeFile(join(gitdir, 'HEAD'), `${fetched.fetchHead}\n`);
  return { head: fetched.fetchHead, pack: (await packsIn(gitdir)).find((p) => !before.has(p)) ?? null };
}

async function headOf(gitdir: string): Promise<string> {
  try {
    return await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
  } catch {
    throw new Error('it has no HEAD commit');
  }
}

function progressLog(log: Log): (p: { phase: string; loaded: number; total?: number }) => void {
  let shown = 0;
  return ({ phase, loaded, total }) => {
    if (Date.now() - shown < 5_000) return;
    shown = Date.now();
    log(`  ${phase}: ${loaded}${total ? ` of ${total}` : ''}`);
  };
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}
