// dynalite as it ships, in memory, in a thread of its own (its own module cache: none of asof's changes to dynalite
// reach it), for tests that compare the embedded DynamoDB's answers with dynalite's own.
const { parentPort } = require('node:worker_threads');
const dynalite = require('dynalite');

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', () => server.close(() => parentPort.close()));
