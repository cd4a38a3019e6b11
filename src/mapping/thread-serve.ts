import { parentPort, workerData } from 'node:worker_threads';

/**
 * The thread side of ./thread-runner.ts: sets up once (with the runner's `setup`), says it is
 * ready, then answers each job in turn. A job's error is answered as its message; the thread
 * lives on. An answer that cannot be sent (a function in it) is that job's error.
 */
export async function serveJobs<S, J, R>(setup: (settings: S) => Promise<(job: J) => Promise<R>>): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('serveJobs runs in a worker thread');
  const handle = await setup((workerData as { setup: S }).setup);
  port.on('message', (job: J) => {
    handle(job).then(
      (result) => {
        try {
          port.postMessage({ ok: true, result });
        } catch (err) {
          port.postMessage({ ok: false, message: `the answer cannot be sent: ${(err as Error).message}` });
        }
      },
      (err: unknown) => port.postMessage({ ok: false, message: (err as Error)?.message ?? String(err) }),
    );
  });
  port.postMessage({ ready: true });
}
