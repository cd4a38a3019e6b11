import { Queue, Worker } from 'bullmq';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { compileMappingSource, DEFAULT_LIMITS, type CompiledMapping } from '../src/mapping/compile.ts';
import { bullConnection } from '../src/queues/bull-connection.ts';
import { openStore } from '../src/store/open-store.ts';
import { forkChild } from './bench-child.ts';
import { benchMessage, benchVin, ITEMS_PER_MESSAGE } from './ingest-message.ts';

/**
 * The mapping alone: the same telemetry mapping evaluated in a loop on the same raw messages
 * (parsed once), on this one core, by the JSONata interpreter or compiled to JavaScript
 * (src/mapping/to-js/). Messages per second.
 */
export async function mappingAloneRate(mapping: CompiledMapping, seconds: number, compiler: boolean): Promise<number> {
  // The same source compiled without the wall-clock limit: a GC pause must not end the baseline.
  mapping = compileMappingSource(mapping.file, readFileSync(mapping.file, 'utf8'), { ...DEFAULT_LIMITS, timeoutMs: 0 }, { compiler });
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

/**
 * The store alone: the data points the pipeline writes for the bench messages (mapped once,
 * compiled, by each writer before the clock starts), written with `store.dataPoints.insertMany`
 * in batches of PIPELINE_BATCH_SIZE messages, into a fresh SQLite file opened as the service
 * opens it, by `writers` processes at once (bench/ingest-store-writer.ts), as the harmonize
 * workers share the file. Data items per second over all writers, first start to last end.
 */
export interface StoreAlone {
  itemsPerS: number;
  /** Row writes per telemetry message (src/store/sqlite/store-writes.ts), over all writers. */
  writesPerMessage: { history: number; latest: number; dictionary: number; shapes: number };
}

export async function storeAloneRate(env: Record<string, string>, writers: number, messagesPerWriter: number, existingDir?: string): Promise<StoreAlone> {
  // A store that already holds data (BENCH_STORE_DIR) is written into as it is, and kept.
  const dataDir = existingDir ?? mkdtempSync(join(tmpdir(), 'cvd-bench-store-'));
  try {
    const childEnv = { ...env, DATA_DIR: dataDir, STORE_MESSAGES: String(messagesPerWriter) };
    // Created before the writers start, so they do not race to create the schema.
    await (await openStore(loadConfig(childEnv))).close();
    const children = await Promise.all(Array.from({ length: writers }, (_, i) => forkChild('ingest-store-writer.ts', { ...childEnv, WRITER_INDEX: String(i) })));
    type Done = { items: number; startMs: number; endMs: number; writes: { messages: number; historyRows: number; latestRows: number; dictionaryRows: number; shapeRows: number } };
    const done = (c: ChildProcess) => new Promise<Done>((resolve) => c.once('message', resolve));
    const results = children.map(done);
    for (const c of children) c.send({ cmd: 'go' });
    const r = await Promise.all(results);
    const items = r.reduce((a, x) => a + x.items, 0);
    if (items !== writers * messagesPerWriter * ITEMS_PER_MESSAGE) throw new Error(`the store alone stored ${items} items, not ${writers * messagesPerWriter * ITEMS_PER_MESSAGE}`);
    const seconds = (Math.max(...r.map((x) => x.endMs)) - Math.min(...r.map((x) => x.startMs))) / 1000;
    const sum = (k: keyof Done['writes']) => r.reduce((a, x) => a + x.writes[k], 0);
    const messages = sum('messages');
    return {
      itemsPerS: items / seconds,
      writesPerMessage: { history: sum('historyRows') / messages, latest: sum('latestRows') / messages, dictionary: sum('dictionaryRows') / messages, shapes: sum('shapeRows') / messages },
    };
  } finally {
    if (!existingDir) rmSync(dataDir, { recursive: true, force: true });
  }
}
