import { Queue, Worker } from 'bullmq';
import { readFileSync } from 'node:fs';
import { compileMappingSource, type CompiledMapping } from '../src/mapping/compile.ts';
import { bullConnection } from '../src/queues/bull-connection.ts';
import { benchMessage, benchVin } from './ingest-message.ts';

/**
 * The mapping alone: the same telemetry mapping evaluated in a loop on the same raw messages
 * (parsed once), on this one core, by the JSONata interpreter or compiled to JavaScript
 * (src/mapping/to-js/). Messages per second.
 */
export async function mappingAloneRate(mapping: CompiledMapping, seconds: number, compiler: boolean): Promise<number> {
  // The same source compiled without the wall-clock limit: a GC pause must not end the baseline.
  mapping = compileMappingSource(mapping.file, readFileSync(mapping.file, 'utf8'), { timeoutMs: 0, maxDepth: 200, maxSequence: 100_000 }, { compiler });
  if (mapping.engine !== (compiler ? 'compiled' : 'interpreted')) throw new Error(`${mapping.file} runs ${mapping.engine}: ${mapping.interpretedBecause}`);
  const inputs = Array.from({ length: 200 }, (_, i) => JSON.parse(benchMessage(benchVin(i), Date.now() + i)) as unknown);
  const bindings = { receivedAt: new Date().toISOString(), messageType: 'telemetry' };
  for (let i = 0; i < 200; i++) await mapping.evaluate(inputs[i % inputs.length], bindings);
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) await mapping.evaluate(inputs[n++ % inputs.length], bindings);
  }
  return (n / (performance.now() - start)) * 1000;
}

/**
 * BullMQ alone, as performance.md measures it: `addBulk` of empty jobs, then a worker with an
 * empty processor at concurrency 100, on the same Redis.
 */
export async function bullmqAloneRates(redisUrl: string, prefix: string, jobs: number): Promise<{ addsPerS: number; processedPerS: number }> {
  const queue = new Queue('bench-baseline', { connection: bullConnection(redisUrl, 'worker'), prefix });
  const addStart = performance.now();
  for (let i = 0; i < jobs; i += 1000) {
    await queue.addBulk(Array.from({ length: Math.min(1000, jobs - i) }, (_, k) => ({ name: 'j', data: { i: i + k }, opts: { removeOnComplete: true } })));
  }
  const addsPerS = (jobs / (performance.now() - addStart)) * 1000;
  let done = 0;
  const processStart = performance.now();
  const finished = new Promise<void>((resolve) => {
    const worker = new Worker('bench-baseline', async () => {}, { connection: bullConnection(redisUrl, 'worker'), prefix, concurrency: 100 });
    worker.on('completed', () => {
      if (++done === jobs) void worker.close().then(() => resolve());
    });
  });
  await finished;
  const processedPerS = (jobs / (performance.now() - processStart)) * 1000;
  await queue.obliterate({ force: true });
  await queue.close();
  return { addsPerS, processedPerS };
}
