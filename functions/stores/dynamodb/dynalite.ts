/**
 * An embedded DynamoDB (dynalite) on 127.0.0.1, in a thread of its own: in memory, or LevelDB on disk when given a
 * path. It serves only requests signed with the fresh credentials it is started with.
 *
 * Its own thread because dynalite and LevelDB's bindings take about a quarter of the main thread's time in an ingest
 * (the AWS SDK client that talks to it takes as much again): in the server's thread they run beside the ingest on the
 * machine's other core instead of before it.
 */
import { randomBytes } from 'node:crypto';
import { MessageChannel, Worker } from 'node:worker_threads';
import { WriteCounters, type WriteTracker } from '#stores/cache/change-stamps.ts';
import type { LocalDynamoAccess } from './client.ts';
import { DirectDynamo } from './direct-dynamo.ts';
import type { LocalCredentials } from './signature-check.ts';

export interface RunningDynalite {
  /** `http://127.0.0.1:<port>` and the credentials it accepts: what a client needs (createDocumentClient). */
  access: LocalDynamoAccess;
  /** The starting process's own way in: over a MessagePort, no socket, nothing signed (direct-dynamo.ts). */
  direct: DirectDynamo;
  /** Stops the listener, drops open connections and closes LevelDB (releasing its lock), and ends the thread. */
  close(): Promise<void>;
}

const newCredentials = (): LocalCredentials => ({
  accessKeyId: `ASOF${randomBytes(8).toString('hex').toUpperCase()}`,
  secretAccessKey: randomBytes(30).toString('base64url'),
});

type ThreadMessage = { ready: true; port: number } | { ready: false; error: string } | { closed: boolean; error?: string };

/**
 * Accepts only the fresh random credentials it is started with (see `access`). `tracker`: counts every write it
 * admits (the embedded stores' caches rely on it).
 */
export async function startDynalite(options: { path?: string; port?: number; tracker?: WriteTracker } = {}): Promise<RunningDynalite> {
  const credentials = newCredentials();
  // Without a tracker, counters nobody reads.
  const counters = (options.tracker?.counters ?? new WriteCounters()).buffer;
  const requests = new MessageChannel();
  const worker = new Worker(new URL('./dynalite-thread.mjs', import.meta.url), {
    workerData: { path: options.path, port: options.port ?? 0, credentials, counters, requests: requests.port2 },
    transferList: [requests.port2],
  });
  const direct = new DirectDynamo(requests.port1);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // Only these listeners are removed once it serves: a Worker keeps listeners of its own, and `exited` must stay.
  let onError: (err: Error) => void = () => undefined;
  let onExit: (code: number) => void = () => undefined;
  const port = await new Promise<number>((resolve, reject) => {
    onError = reject;
    onExit = (code) => reject(new Error(`the embedded DynamoDB's thread ended before it served (exit code ${code})`));
    worker.once('error', onError).once('exit', onExit);
    worker.once('message', (m: ThreadMessage) => {
      if ('ready' in m && m.ready) resolve(m.port);
      else reject(new Error('error' in m && m.error ? m.error : 'the embedded DynamoDB did not start'));
    });
  }).catch(async (err: unknown) => {
    direct.close();
    await worker.terminate();
    throw err;
  });
  worker.off('error', onError).off('exit', onExit);
  // A thread that fails after it served leaves the port closed: requests then fail as with any store that is down.
  worker.on('error', () => {});

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    // From now on no cache may answer for this store: a read must fail as the store does.
    options.tracker?.closeAll();
    direct.close();
    closing ??= (async () => {
      const answer = new Promise<ThreadMessage | null>((resolve) => {
        worker.once('message', resolve);
        void exited.then(() => resolve(null));
      });
      worker.postMessage('close');
      const m = await answer;
      // LevelDB is closed by now; the thread would stay alive for its TypeScript loader's port.
      await worker.terminate();
      if (m && 'closed' in m && !m.closed) throw new Error(`the embedded DynamoDB did not close cleanly: ${m.error}`);
    })();
    return closing;
  };
  return { access: { endpoint: `http://127.0.0.1:${port}`, credentials }, direct, close };
}
