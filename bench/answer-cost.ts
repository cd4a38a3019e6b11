/**
 * `npm run bench:answer-cost`: what this machine charges a server for sending one answer of the
 * delivery bench's size (21 KB), and how that changes when the server is the busy side.
 *
 * A bare node:http server answers a constant 21 KB body, to the same load generator as
 * bench/delivery.ts, in turn (twice each): at once, and after a fixed amount of busy work per
 * request (about what a delivery request costs in our code). The server's own event-loop time per
 * answer is printed for both; the second, minus the work itself, is what answering costs when
 * the server is the busy side: the load generator sits idle between answers and each answer must
 * wake it (on these virtual machines a cross-core wake-up is dear), and each event-loop turn
 * serves fewer requests. Delivery runs in that regime; hello-world, whose load generator is the
 * busy side, does not.
 *
 * BENCH_ANSWER_BYTES=17 (a hello-world's size) shows the extra cost does not come from the size.
 *
 * Settings: BENCH_SECONDS (default 4), BENCH_CONNECTIONS (default 8), BENCH_WORK_US (default 150),
 * BENCH_ANSWER_BYTES (default 21315).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { loadGenerator } from './load-thread.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const WORK_US = Number(process.env.BENCH_WORK_US ?? 150);
const ANSWER = Buffer.alloc(Number(process.env.BENCH_ANSWER_BYTES ?? 21_315), 'x');

let workUs = 0;
let answered = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const until = performance.now() + workUs / 1000;
    while (performance.now() < until);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER.length });
    res.end(ANSWER);
    answered++;
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const loader = loadGenerator();

/** Runs the load with `work` µs of busy work per request; the server's busy µs per answer. */
async function measure(work: number): Promise<{ perSecond: number; busyUs: number }> {
  workUs = work;
  const elu0 = performance.eventLoopUtilization();
  const n0 = answered;
  const r = await loader.run({ origins: [origin], method: 'GET', path: '/', headers: {}, connections: CONNECTIONS, warmupMs: 500, durationMs: SECONDS * 1000, expectStatus: 200 });
  const elu = performance.eventLoopUtilization(elu0);
  return { perSecond: r.perSecond, busyUs: (elu.active * 1000) / (answered - n0) };
}

const rows: [string, number, { perSecond: number; busyUs: number }][] = [];
for (const work of [0, WORK_US, 0, WORK_US]) rows.push([work ? `after ${work} µs of work` : 'at once', work, await measure(work)]);
console.log(`a bare node:http server answering ${ANSWER.length} bytes, ${CONNECTIONS} connections, ${SECONDS} s each:`);
for (const [label, work, m] of rows) {
  const sending = m.busyUs - work;
  console.log(`  ${label.padEnd(22)} ${m.perSecond.toFixed(0).padStart(6)} req/s  server ${m.busyUs.toFixed(1).padStart(6)} µs per answer, of which sending and HTTP ${sending.toFixed(1)} µs`);
}
await loader.close();
server.close();
