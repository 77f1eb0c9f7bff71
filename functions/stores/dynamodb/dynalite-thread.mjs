// The embedded DynamoDB's server in a thread of its own (see dynalite.ts). Plain JavaScript on purpose: a worker
// thread does not inherit the TypeScript loader of the process that starts it, so it registers its own.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();

const { path, port, credentials, counters } = workerData;

try {
  const { serveDynalite } = await import('./dynalite-server.ts');
  const { WriteCounters } = await import('../cache/change-stamps.ts');
  const serving = await serveDynalite({ path, port, credentials, counters: new WriteCounters(counters) });
  parentPort.once('message', async () => {
    try {
      await serving.close();
      parentPort.postMessage({ closed: true });
    } catch (err) {
      parentPort.postMessage({ closed: false, error: err?.message ?? String(err) });
    }
    parentPort.close();
  });
  parentPort.postMessage({ ready: true, port: serving.port });
} catch (err) {
  parentPort.postMessage({ ready: false, error: err?.message ?? String(err) });
  parentPort.close();
}
