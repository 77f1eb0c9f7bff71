/**
 * The file system isomorphic-git reads a repository through while nothing writes to it (a run's reads, after any
 * fetch). It is node's, except for what every single read asks again: the git dir's stat (each call), the pack
 * folder's listing (each object) and the loose object's file (each object, though a bundle's or a fetch's objects are
 * all in packs), whose ENOENT node builds as an Error with its stack. Those are answered from memory: on the D.C.
 * history they were about 15 s of the main thread's 115 s busy in a fetch (bench/RESULTS.md § 1i).
 */
import { promises as nodeFs } from 'node:fs';
import { basename, dirname } from 'node:path';

type PromiseFs = typeof nodeFs;

/** What isomorphic-git takes as `fs`: an object whose enumerable `promises` is a promise file system. */
export interface GitReadFs {
  promises: PromiseFs;
}

const readFsOf = new WeakMap<object, GitReadFs>();

/** A rejection isomorphic-git reads as "not found" (it looks at `code` alone), without a stack to build. */
const notFound = () => Promise.reject({ code: 'ENOENT' });

const LOOSE_OBJECT = /[\\/]objects[\\/][0-9a-f]{2}[\\/][0-9a-f]{38,62}$/;

/**
 * The read file system of one run's reads, kept with isomorphic-git's object cache of that run: a new cache (after a
 * fetch that added packs) gets a new one.
 */
export function gitReadFs(cache: object): GitReadFs {
  let fs = readFsOf.get(cache);
  if (!fs) {
    fs = { promises: memoizedFs() };
    readFsOf.set(cache, fs);
  }
  return fs;
}

/** What every read of a run passes isomorphic-git: the repository, the run's object cache and its read file system. */
export const readArgs = (repo: { gitdir: string; cache: object }) => ({
  fs: gitReadFs(repo.cache),
  gitdir: repo.gitdir,
  cache: repo.cache,
});

function memoizedFs(): PromiseFs {
  const stats = new Map<string, ReturnType<PromiseFs['stat']>>();
  const listings = new Map<string, Promise<string[]>>();
  const listing = (dir: string) => {
    let names = listings.get(dir);
    if (!names) {
      names = nodeFs.readdir(dir);
      listings.set(dir, names);
    }
    return names;
  };
  const methods: Partial<PromiseFs> = {
    stat: ((path: string) => {
      let stat = stats.get(path);
      if (!stat) {
        stat = nodeFs.stat(path);
        stats.set(path, stat);
      }
      return stat;
    }) as PromiseFs['stat'],
    readdir: ((path: string) => listing(path).then((names) => [...names])) as PromiseFs['readdir'],
    readFile: (async (path: string, options?: Parameters<PromiseFs['readFile']>[1]) => {
      // isomorphic-git calls readFile() without a path to learn whether the file system answers with promises.
      if (typeof path !== 'string') return notFound();
      if (LOOSE_OBJECT.test(path)) {
        const fanOut = dirname(path);
        const present = await listing(dirname(fanOut)).then(
          (names) => names.includes(basename(fanOut)),
          () => false,
        );
        if (!present) return notFound();
      }
      return nodeFs.readFile(path, options);
    }) as PromiseFs['readFile'],
  };
  return new Proxy(nodeFs, {
    get: (target, name: string) => methods[name as keyof PromiseFs] ?? Reflect.get(target, name),
  });
}
