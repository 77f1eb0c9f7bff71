import { chmod, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';

/** A job the running server performs for another `asof` command; it streams log lines, then returns a result. */
export type AdminJob = (body: unknown, log: (line: string) => void) => Promise<unknown>;

/**
 * The server side of the local admin channel: HTTP over a Unix socket that only the data dir's owner can open
 * (mode 0600), answering each job as NDJSON lines `{"log": …}` … then `{"result": …}` or `{"error": …}`.
 */
export async function listenAdminSocket(path: string, jobs: Record<string, AdminJob>): Promise<Server> {
  await rm(path, { force: true });
  const server = createServer((req, res) => {
    const job = jobs[(req.url ?? '/').replace(/^\//, '')];
    if (req.method !== 'POST' || !job) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const line = (obj: unknown) => res.write(`${JSON.stringify(obj)}\n`);
      let body: unknown;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {
        line({ error: 'admin request body is not JSON' });
        res.end();
        return;
      }
      job(body, (text) => line({ log: text }))
        .then((result) => line({ result }))
        .catch((err: unknown) => line({ error: err instanceof Error ? err.message : String(err) }))
        .finally(() => res.end());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  return server;
}

/** The client side: run `job` on the server at `path`, forwarding its log lines; rejects with the job's error. */
export function callAdminJob(path: string, job: string, body: unknown, onLog: (line: string) => void): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, path: `/${job}`, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`the running server does not know the job '${job}' (HTTP ${res.statusCode})`));
        res.resume();
        return;
      }
      let buffer = '';
      let settled = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const msg = JSON.parse(buffer.slice(0, nl)) as { log?: string; result?: unknown; error?: string };
          buffer = buffer.slice(nl + 1);
          if (msg.log !== undefined) onLog(msg.log);
          else if (msg.error !== undefined) {
            settled = true;
            reject(new Error(msg.error));
          } else {
            settled = true;
            resolve(msg.result);
          }
        }
      });
      // A server that dies mid-job (kill -9) resets the connection: 'error' then 'close', and no 'end'.
      const cut = () => {
        if (settled) return;
        settled = true;
        reject(new Error('the server closed the admin connection before answering'));
      };
      res.on('error', cut);
      res.on('close', cut);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
