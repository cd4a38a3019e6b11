import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The local webhook sink of `npm run bench:push`, in its own process so that (a) it does not
 * compete for the event loop of the push worker it measures and (b) the bench process's CPU
 * time is the push path's alone. It answers 204 and counts requests; with `latency` on it also
 * records, per request, the time since the event's `receivedAt` (the moment the bench handed
 * the event to the fan-out).
 */
const SINK_SOURCE = `
const { createServer } = require('node:http');
const latency = process.argv[2] === 'latency';
let count = 0;
const latencies = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (latency && chunks.length) {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const point = Object.values(body.inVehicleResponse.inVehicleData[0].response)[0].dataPoint;
        latencies.push(Date.now() - Date.parse(point.receivedAt));
      } catch {}
    }
    count++;
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 10000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ count });
  if (m === 'reset') { count = 0; process.send({ count }); }
  if (m === 'latencies') process.send({ latencies: latencies.splice(0) });
  if (m === 'close') server.close(() => process.exit(0));
});
`;

export interface Sink {
  url: string;
  count(): Promise<number>;
  reset(): Promise<void>;
  latencies(): Promise<number[]>;
  close(): Promise<void>;
}

function ask<T>(child: ChildProcess, message: string, key: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (key in m) {
        child.off('message', onMessage);
        resolve(m[key] as T);
      }
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

export async function startSink(opts: { latency?: boolean } = {}): Promise<Sink> {
  const file = join(mkdtempSync(join(tmpdir(), 'cvd-sink-')), 'sink.cjs');
  writeFileSync(file, SINK_SOURCE);
  const child = fork(file, [opts.latency ? 'latency' : ''], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    count: () => ask<number>(child, 'count', 'count'),
    reset: async () => void (await ask<number>(child, 'reset', 'count')),
    latencies: () => ask<number[]>(child, 'latencies', 'latencies'),
    close: async () => {
      child.send('close');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
