// The embedded DynamoDB's server in a thread of its own (see dynalite.ts). Plain JavaScript on purpose: a worker
// thread does not inherit the TypeScript loader of the process that starts it, so it registers its own: tsx's
// CommonJS hook, which compiles in this thread (from tsx's cache), where its ES module hook would start a loader
// thread of its own (about 0.1 s more of a start and the CPU of a second thread).
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/cjs/api';

register();
const require = createRequire(import.meta.url);

const { path, port, credentials, counters, requests } = workerData;

try {
  const { serveDynalite } = require('./dynalite-server.ts');
  const { WriteCounters } = require('../cache/change-stamps.ts');
  const serving = await serveDynalite({ path, port, credentials, counters: new WriteCounters(counters) });
  // The starting process's own requests, without a socket (dynalite.ts, DirectDynamo): { id, target, body } in,
  // { id, status, headers, body } or { id, error } out.
  requests.on('message', ({ id, target, body }) => {
    serving.direct({ target, body }).then(
      (answer) => requests.postMessage({ id, ...answer }),
      (err) => requests.postMessage({ id, error: err?.message ?? String(err) }),
    );
  });
  parentPort.once('message', async () => {
    try {
      await serving.close();
      requests.close();
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
