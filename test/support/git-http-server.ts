/**
 * A local stand-in for the D.C. Council's git remote: a bare repository served over git's smart HTTP protocol by git
 * itself (`git http-backend`, the CGI program git ships for exactly this, run per request as a web server would), so
 * what isomorphic-git talks to is real git's upload-pack negotiation: what it is told the client has decides the pack
 * it sends. The repository is made from a bundle; `moveHead` sets the default branch to an earlier or later commit (the
 * Council publishing), `down` answers every request 503. Every request is logged with its status and body size.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GitRequest {
  method: string;
  path: string;
  status: number;
  /** Bytes of the answer's body. */
  bytes: number;
}

export interface GitHttpServer {
  /** The repository's URL (http://127.0.0.1:port/repo.git). */
  url: string;
  requests: GitRequest[];
  /** Points the default branch at `commit`. */
  moveHead(commit: string): void;
  /** While true, every request answers 503. */
  down: boolean;
  close(): Promise<void>;
}

const BRANCH = 'refs/heads/line';

/** The object ids a pack's index lists (`git show-index`). */
export const packObjectIds = (idx: Buffer): Set<string> =>
  new Set(
    spawnSync('git', ['show-index'], { input: idx, encoding: 'utf8' })
      .stdout.split('\n')
      .flatMap((l) => l.split(' ')[1] ?? []),
  );

function git(args: string[], cwd?: string): string {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

/** Serves the history of `bundle`'s `ref` as a repository whose default branch is at `at` (default: the ref's commit). */
export async function startGitHttpServer(bundle: string, ref: string, at?: string): Promise<GitHttpServer> {
  const root = await mkdtemp(join(tmpdir(), 'asof-git-remote-'));
  const repo = join(root, 'repo.git');
  git(['init', '--quiet', '--bare', repo]);
  git(['fetch', '--quiet', bundle, `${ref}:${BRANCH}`], repo);
  git(['symbolic-ref', 'HEAD', BRANCH], repo);
  const moveHead = (commit: string) => git(['update-ref', BRANCH, commit], repo);
  if (at) moveHead(at);

  const requests: GitRequest[] = [];
  const state = { down: false };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const log = (status: number, bytes: number) => requests.push({ method: req.method ?? '', path: url.pathname, status, bytes });
    if (state.down) {
      res.writeHead(503).end('unavailable');
      log(503, 11);
      return;
    }
    cgi(root, req, res, url, log);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/repo.git`,
    requests,
    moveHead,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** One request through `git http-backend` (CGI/1.1: the request in the environment and on stdin, headers then body on stdout). */
function cgi(root: string, req: IncomingMessage, res: ServerResponse, url: URL, log: (status: number, bytes: number) => void): void {
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-length'] && { CONTENT_LENGTH: req.headers['content-length'] }),
      ...(req.headers['content-encoding'] && { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }),
      REMOTE_ADDR: '127.0.0.1',
      GIT_HTTP_MAX_REQUEST_BUFFER: '100M',
    },
  });
  req.pipe(child.stdin);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.on('close', () => {
    const out = Buffer.concat(chunks);
    const end = out.indexOf('\r\n\r\n');
    const headerText = out.subarray(0, end < 0 ? 0 : end).toString('latin1');
    const body = out.subarray(end < 0 ? 0 : end + 4);
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of headerText.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    res.writeHead(status, headers).end(body);
    log(status, body.length);
  });
}
