import { Worker } from 'node:worker_threads';
import type { LoadResult, LoadSpec } from './delivery-load.ts';

/** A worker thread running a TypeScript file: tsx's loader is registered first, then the file is imported. */
export function tsWorker(file: string, workerData: unknown): Worker {
  const url = new URL(file, import.meta.url).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

/**
 * The load generator of bench/delivery-load.ts in its own thread, so it does not share the
 * measured server's event loop: one run per call, one run at a time.
 */
export function loadGenerator(): { run(spec: LoadSpec): Promise<LoadResult>; close(): Promise<number> } {
  const w = tsWorker('./delivery-load.ts', { loadWorker: true });
  let pending: { resolve: (r: LoadResult) => void; reject: (e: Error) => void } | undefined;
  w.on('message', (m: { result?: LoadResult; error?: string }) => (m.result ? pending?.resolve(m.result) : pending?.reject(new Error(m.error))));
  w.on('error', (err) => pending?.reject(err));
  return {
    run: (spec) =>
      new Promise((resolve, reject) => {
        pending = { resolve, reject };
        w.postMessage({ load: spec });
      }),
    close: () => w.terminate(),
  };
}
