/**
 * A local fake of the Office of the Law Revision Counsel's download site (https://uscode.house.gov), over real
 * sockets: the repo's `data/uslm/olrc/` tree served by the publisher's URL scheme
 * (`/download/releasepoints/us/pl/<congress>/<law>/xml_usc<TT>@<congress>-<law>.zip`), and the two pages
 * `asof fetch uscode` reads, in the real pages' shape (docs/INGEST.md): `/download/download.shtml` (the current
 * release point and a row per title) and `/download/priorreleasepoints.htm` (the prior ones, newest first, the current
 * one commented out at the top). Zips answer Range requests (206) like a static file server, unless told not to.
 *
 * Zip names are matched without regard to case, as a mirror may spell appendix titles either way; the repo packs them
 * as the publisher names them (`xml_usc05a@117-80.zip`, holding `usc05A.xml`).
 *
 * Switches for the faults a publisher has: a connection cut midway through a zip, a corrupt zip, a status for every
 * zip (404, 503), Range not supported. Every request is logged.
 *
 * TEST FIXTURE: the public-law dates and "affecting titles" in the pages are the fake's, written in the real pages'
 * form; only the zips are the publisher's data.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const OLRC_TREE = fileURLToPath(new URL('../../data/uslm/olrc/', import.meta.url));

export interface FakeReleasePoint {
  id: string;
  /** MM/DD/YYYY, as the pages write it. */
  date: string;
  /** "affecting titles …" as the list writes it (prior ones), or the titles marked changed (the current one). */
  affecting?: string[];
}

/** The fake's release points: 117-80 current; 113-31 and 113-21 (of which the repo holds no zip) before it. */
export const FAKE_RELEASE_POINTS = {
  current: { id: '117-80', date: '12/27/2021', affecting: ['1', '5A', '17'] },
  prior: [
    { id: '113-31', date: '08/09/2013', affecting: ['1', '6', '17', '35'] },
    { id: '113-21', date: '07/18/2013', affecting: ['16', '42'] },
  ],
} satisfies { current: FakeReleasePoint; prior: FakeReleasePoint[] };

export interface LoggedRequest {
  method: string;
  path: string;
  range?: string;
  status: number;
  /** Body bytes sent (before a cut). */
  bytes: number;
}

export interface FakeOlrc {
  url: string;
  requests: LoggedRequest[];
  /** Zip requests only. */
  zipRequests(): LoggedRequest[];
  /** Cut the connection after this many body bytes, for the next `times` zip answers. */
  cut: { afterBytes: number; times: number } | null;
  /** Zip paths (lower case, as `zipPath` gives) answered with damaged bytes. */
  corrupt: Set<string>;
  /** Answer every zip request with this status (404, 503). */
  zipStatus: number | null;
  /** false: ignore Range headers (always 200 with the whole file), as some servers do. */
  ranges: boolean;
  close(): Promise<void>;
}

const rpPath = (id: string) => {
  const [congress, law] = id.split('-') as [string, string];
  return `releasepoints/us/pl/${congress}/${law}`;
};

/** The zips the repo holds, by their URL path in lower case → file. */
function zipsOnDisk(): Map<string, string> {
  const zips = new Map<string, string>();
  const base = join(OLRC_TREE, 'download/releasepoints/us/pl');
  for (const congress of readdirSync(base))
    for (const law of readdirSync(join(base, congress)))
      for (const name of readdirSync(join(base, congress, law))) {
        zips.set(`/download/releasepoints/us/pl/${congress}/${law}/${name}`.toLowerCase(), join(base, congress, law, name));
      }
  return zips;
}

/** Title codes (`01`, `05a`) the repo holds at a release point. */
function titlesAt(zips: Map<string, string>, id: string): string[] {
  const prefix = `/download/${rpPath(id)}/`;
  return [...zips.keys()]
    .filter((p) => p.startsWith(prefix))
    .map((p) => /xml_usc([0-9a-z]+)@/.exec(p)![1]!)
    .sort();
}

const titleLabel = (code: string) => code.replace(/^0/, '').toUpperCase();

/** `download/download.shtml` in the real page's shape (reduced to what a reader of it needs). */
export function currentPage(rp: FakeReleasePoint, titles: readonly string[]): string {
  const dir = rpPath(rp.id);
  const rows = titles.map((code) => {
    const appendix = code.endsWith('a');
    const changed = rp.affecting?.some((t) => t.toLowerCase().padStart(code.length, '0') === code) ?? false;
    const cls = ['uscitem', ...(changed ? [appendix ? 'usctitleappendixchanged' : 'usctitlechanged'] : [])].join(' ');
    return `      <div class="${cls}" id="us/usc/t${code.replace(/^0/, '').replace(/a$/, '')}">
        <div class="${appendix ? 'usctitleappendix' : 'usctitle'}">${appendix ? 'Appendix' : `Title ${titleLabel(code)}`}</div>
        <div class="itemcurrency">${rp.id}</div>
        <div class="itemdownloadlinks"><a href="${dir}/xml_usc${code}@${rp.id}.zip" title="XML">[XML]</a> <a href="${dir}/htm_usc${code}@${rp.id}.zip" title="XHTML">[XHTML]</a> <a href="${dir}/pdf_usc${code}@${rp.id}.zip" title="PDF">[PDF]</a></div>
      </div>`;
  });
  return `<!DOCTYPE html>
<html lang="en">
<head><title>Download the United States Code</title></head>
<body>
  <div id="content">
    <h3 class="releasepointinformation">Public Law ${rp.id} (${rp.date})</h3>
    <div class="uscitemlist">
      <div class="uscitem" id="alltitles">
        <div class="usctitle">All USC Titles</div>
        <div class="itemdownloadlinks"><a href="${dir}/xml_uscAll@${rp.id}.zip" title="All USC Titles in XML">[XML]</a></div>
      </div>
${rows.join('\n')}
    </div>
  </div>
</body>
</html>
`;
}

const listItem = (rp: FakeReleasePoint) =>
  `<li class="releasepoint"><a class="releasepoint" href="${rpPath(rp.id)}/usc-rp@${rp.id}.htm">Public Law ${rp.id} (${rp.date})${
    rp.affecting?.length ? `, affecting title${rp.affecting.length > 1 ? 's' : ''} ${rp.affecting.join(', ')}` : ''
  }.</a></li>`;

/** `download/priorreleasepoints.htm` in the real page's shape: the current release point commented out at the top. */
export function priorPage(current: FakeReleasePoint, prior: readonly FakeReleasePoint[]): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><title>Prior Release Points</title></head>
<body>
  <div id="content">
    <h2>Prior Release Points</h2>
    <ul class="releasepoints">
<!--    ${listItem(current)}  -->
${prior.map((rp) => `      ${listItem(rp)}`).join('\n')}
    </ul>
  </div>
</body>
</html>
`;
}

/** The same zip with a byte of its compressed data flipped: its CRC-32 (or its inflation) fails. */
function damaged(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  const at = Math.floor(copy.length / 2);
  copy[at] = copy[at]! ^ 0xff;
  return copy;
}

export async function startFakeOlrc(): Promise<FakeOlrc> {
  const zips = zipsOnDisk();
  const pages = {
    '/download/download.shtml': currentPage(FAKE_RELEASE_POINTS.current, titlesAt(zips, FAKE_RELEASE_POINTS.current.id)),
    '/download/priorreleasepoints.htm': priorPage(FAKE_RELEASE_POINTS.current, FAKE_RELEASE_POINTS.prior),
  } as Record<string, string>;

  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://fake').pathname);
    const log: LoggedRequest = {
      method: req.method ?? 'GET',
      path,
      status: 0,
      bytes: 0,
      ...(req.headers.range && { range: req.headers.range }),
    };
    fake.requests.push(log);
    const send = (status: number, body: Buffer | string, headers: Record<string, string> = {}) => {
      log.status = status;
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      log.bytes = bytes.length;
      res.writeHead(status, { 'content-length': String(bytes.length), ...headers });
      res.end(bytes);
    };
    if (req.method !== 'GET') return send(405, 'method not allowed');
    const page = pages[path];
    if (page) return send(200, page, { 'content-type': 'text/html; charset=UTF-8' });
    const file = zips.get(path.toLowerCase());
    if (!path.endsWith('.zip') || !file) return send(404, '<html><body>Not Found</body></html>', { 'content-type': 'text/html' });
    if (fake.zipStatus) return send(fake.zipStatus, `<html><body>HTTP ${fake.zipStatus}</body></html>`, { 'content-type': 'text/html' });

    const whole = fake.corrupt.has(path.toLowerCase()) ? damaged(readFileSync(file)) : readFileSync(file);
    const etag = `"${createHash('sha256').update(whole).digest('hex').slice(0, 16)}"`;
    let body = whole;
    let status = 200;
    const headers: Record<string, string> = { etag, ...(fake.ranges && { 'accept-ranges': 'bytes' }) };
    const range = fake.ranges ? /^bytes=(\d+)-$/.exec(req.headers.range ?? '') : null;
    const ifRange = req.headers['if-range'];
    if (range && (!ifRange || ifRange === etag)) {
      const start = Number(range[1]);
      if (start >= whole.length) return send(416, '', { 'content-range': `bytes */${whole.length}` });
      body = whole.subarray(start);
      status = 206;
      headers['content-range'] = `bytes ${start}-${whole.length - 1}/${whole.length}`;
    }
    if (fake.cut && fake.cut.times > 0) {
      fake.cut.times--;
      const sent = body.subarray(0, Math.min(fake.cut.afterBytes, body.length - 1));
      log.status = status;
      log.bytes = sent.length;
      res.writeHead(status, { ...headers, 'content-length': String(body.length) });
      res.write(sent, () => setTimeout(() => res.destroy(), 20));
      return;
    }
    send(status, body, headers);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));

  const fake: FakeOlrc = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: [],
    zipRequests: () => fake.requests.filter((r) => r.path.endsWith('.zip')),
    cut: null,
    corrupt: new Set(),
    zipStatus: null,
    ranges: true,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
  return fake;
}

/** A zip's URL path as the fake logs it and `corrupt` names it. */
export const zipPath = (id: string, title: string) => `/download/${rpPath(id)}/xml_usc${title}@${id}.zip`.toLowerCase();
