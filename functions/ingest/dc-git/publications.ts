/**
 * The Council's record of publications: the first-parent line of the default branch, oldest first. Each commit on it
 * whose subject is a publication label (`2024-03-18/2024-03-18`) is one publication of the whole Code; other commits
 * (the empty root) are not publications, and what they change counts towards the next publication. A publication's
 * changes are read against the previous publication's tree, title folder by title folder (a title whose folder is
 * the same object is skipped unread). Commits off the line (a publication branch never merged) are not read.
 */
import git, { type TreeEntry } from 'isomorphic-git';
import { readArgs } from './git-read-fs.ts';
import type { DcRepository } from './repository.ts';
import { CODE_TITLES_PATH, SECTIONS_FOLDER, sectionKeyOfFile } from './section-key.ts';

export interface Publication {
  commit: string;
  /** The commit's subject, e.g. `2024-03-18/2024-03-18`. */
  subject: string;
  /** The publication's date: the label's first date. */
  date: string;
  /** The previous publication on the line (null for the first). */
  previous: string | null;
}

export interface SectionChange {
  key: string;
  /** Path in the repository (of the new file, or of the deleted one). */
  path: string;
  change: 'A' | 'M' | 'D';
  /** The file's blob in this publication (null when deleted). */
  blob: string | null;
}

const LABEL = /^(\d{4}-\d{2}-\d{2})\/\d{4}-\d{2}-\d{2}$/;

export const publicationDateOf = (subject: string): string | null => LABEL.exec(subject.trim())?.[1] ?? null;

type Repo = Pick<DcRepository, 'gitdir' | 'cache'>;

/** Every publication on the line ending at `head`, oldest first. */
export async function listPublications(repo: Repo, head: string): Promise<Publication[]> {
  const line: { commit: string; subject: string }[] = [];
  for (let oid: string | undefined = head; oid; ) {
    const { commit } = await git.readCommit({ ...readArgs(repo), oid });
    line.push({ commit: oid, subject: commit.message.split('\n', 1)[0]!.trim() });
    oid = commit.parent[0];
  }
  const publications: Publication[] = [];
  let previous: string | null = null;
  for (const { commit, subject } of line.reverse()) {
    const date = publicationDateOf(subject);
    if (!date) continue;
    publications.push({ commit, subject, date, previous });
    previous = commit;
  }
  return publications;
}

/** The publication made by `commit`, with the previous one on its first-parent line. */
export async function publicationAt(repo: Repo, commit: string): Promise<Publication> {
  const { commit: c } = await git.readCommit({ ...readArgs(repo), oid: commit });
  const subject = c.message.split('\n', 1)[0]!.trim();
  const date = publicationDateOf(subject);
  if (!date) throw new Error(`commit ${commit} is not a publication (its subject '${subject}' is not a publication label)`);
  let previous: string | null = null;
  for (let oid = c.parent[0]; oid && !previous; ) {
    const { commit: p } = await git.readCommit({ ...readArgs(repo), oid });
    if (publicationDateOf(p.message.split('\n', 1)[0]!)) previous = oid;
    else oid = p.parent[0];
  }
  return { commit, subject, date, previous };
}

/** The section files the publication added, modified or deleted, against the previous publication. */
export async function publicationChanges(repo: Repo, publication: Publication): Promise<SectionChange[]> {
  const before = publication.previous ? await titleFolders(repo, publication.previous) : new Map<string, string>();
  const after = await titleFolders(repo, publication.commit);
  const changes: SectionChange[] = [];
  for (const title of new Set([...before.keys(), ...after.keys()])) {
    const [a, b] = [before.get(title), after.get(title)];
    if (a === b) continue;
    const [old, now] = [await sectionFiles(repo, a), await sectionFiles(repo, b)];
    const folder = `${CODE_TITLES_PATH}/${title}/${SECTIONS_FOLDER}`;
    for (const [name, entry] of now) {
      const was = old.get(name);
      if (was?.oid === entry.oid) continue;
      changes.push({ key: entry.key, path: `${folder}/${name}`, change: was ? 'M' : 'A', blob: entry.oid });
    }
    for (const [name, entry] of old) {
      if (!now.has(name)) changes.push({ key: entry.key, path: `${folder}/${name}`, change: 'D', blob: null });
    }
  }
  return changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/** The title folders under us/dc/council/code/titles at `commit`: name → tree. */
async function titleFolders(repo: Repo, commit: string): Promise<Map<string, string>> {
  const { commit: c } = await git.readCommit({ ...readArgs(repo), oid: commit });
  let tree = c.tree;
  for (const part of CODE_TITLES_PATH.split('/')) {
    const entry = (await readTree(repo, tree)).find((e) => e.path === part && e.type === 'tree');
    if (!entry) return new Map();
    tree = entry.oid;
  }
  return new Map((await readTree(repo, tree)).filter((e) => e.type === 'tree').map((e) => [e.path, e.oid]));
}

type SectionFiles = ReadonlyMap<string, { oid: string; key: string }>;

/**
 * The section files of title trees read lately, by tree, per run (its object cache): a publication's title folder is
 * the previous one's of the next publication, so each tree is read and parsed once, not twice.
 */
const recentTitles = new WeakMap<object, Map<string, Promise<SectionFiles>>>();
/** Title trees remembered per run: more than the Code's titles, so every changed folder is found again next time. */
const RECENT_TITLES = 256;

/** A title folder's section files (XML only: images and indexes are not sections): file name → blob and key. */
function sectionFiles(repo: Repo, titleTree: string | undefined): Promise<SectionFiles> {
  if (!titleTree) return Promise.resolve(new Map());
  let recent = recentTitles.get(repo.cache);
  if (!recent) {
    recent = new Map();
    recentTitles.set(repo.cache, recent);
  }
  let files = recent.get(titleTree);
  if (!files) {
    files = readSectionFiles(repo, titleTree);
    recent.set(titleTree, files);
    // A failed reading is not remembered.
    files.catch(() => recent.delete(titleTree));
    if (recent.size > RECENT_TITLES) recent.delete(recent.keys().next().value!);
  }
  return files;
}

async function readSectionFiles(repo: Repo, titleTree: string): Promise<SectionFiles> {
  const files = new Map<string, { oid: string; key: string }>();
  const sections = (await readTree(repo, titleTree)).find((e) => e.path === SECTIONS_FOLDER && e.type === 'tree');
  if (!sections) return files;
  for (const e of await readTree(repo, sections.oid)) {
    const key = e.type === 'blob' ? sectionKeyOfFile(e.path) : null;
    if (key) files.set(e.path, { oid: e.oid, key });
  }
  return files;
}

const readTree = async (repo: Repo, oid: string): Promise<TreeEntry[]> => (await git.readTree({ ...readArgs(repo), oid })).tree;
