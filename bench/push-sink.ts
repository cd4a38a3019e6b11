import { Worker } from 'node:worker_threads';

/**
 * The local webhook sink of `npm run bench:push`, on its own thread (the second core) so it
 * does not compete with the push worker it measures. It answers 204 and counts requests in a
 * SharedArrayBuffer; with `latency` on it also records, per request, the time since the event's
 * `receivedAt` (the moment the bench handed the event to the fan-out).
 */
const SINK_SOURCE = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const counter = new Int32Array(workerData.counter);
const latencies = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (workerData.latency && chunks.length) {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const point = Object.values(body.inVehicleResponse.inVehicleData[0].response)[0].dataPoint;
        latencies.push(Date.now() - Date.parse(point.receivedAt));
      } catch {}
    }
    Atomics.add(counter, 0, 1);
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 10000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m === 'latencies') parentPort.postMessage({ latencies: latencies.splice(0) });
  if (m === 'close') server.close(() => process.exit(0));
});
`;

export interface Sink {
  url: string;
  count(): number;
  reset(): void;
  latencies(): Promise<number[]>;
  close(): Promise<void>;
}

export async function startSink(opts: { latency?: boolean } = {}): Promise<Sink> {
  const shared = new SharedArrayBuffer(4);
  const counter = new Int32Array(shared);
  const worker = new Worker(SINK_SOURCE, { eval: true, workerData: { counter: shared, latency: opts.latency ?? false } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    count: () => Atomics.load(counter, 0),
    reset: () => Atomics.store(counter, 0, 0),
    latencies: () =>
      new Promise((resolve) => {
        worker.once('message', (m: { latencies: number[] }) => resolve(m.latencies));
        worker.postMessage('latencies');
      }),
    close: async () => {
      worker.postMessage('close');
      await new Promise((r) => worker.once('exit', r));
    },
  };
}
