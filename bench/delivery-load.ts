import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

/**
 * A small closed-loop HTTP load generator on undici (autocannon is not installed): `connections`
 * loops each send a request, wait for the whole answer, record the latency and send the next.
 * With several origins (one server process each), the connections are spread over them in
 * turn, as a balancer in front of them would.
 * Runs in a worker thread so it does not share the server's event loop; the thread stays up and
 * runs one load per message, so a benchmark can alternate short runs against two servers.
 */
export interface LoadSpec {
  /** One server, or several processes of one service (connections spread evenly). */
  origins: string[];
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Status every answer must have; anything else is counted as an error. */
  expectStatus: number;
}

export interface LoadResult {
  /** Every measured request's latency (ms), so runs can be pooled. */
  latencies: Float64Array;
  requests: number;
  errors: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  firstError?: string;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Answer {
  status: number;
  /** The start of the body, kept for an unexpected status only. */
  start: string;
}

/**
 * The handler of one request, on undici's raw handler interface: the answer's bytes are read to
 * the end and dropped, without building a response stream, parsing the headers into an object
 * or decoding the body (as wrk does), since the generator shares the machine's two cores with
 * the servers it measures. A class, so a request creates no closures.
 */
class AnswerHandler {
  private readonly answer: Answer = { status: 0, start: '' };

  constructor(
    private readonly expectStatus: number,
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  onConnect(): void {}

  onHeaders(statusCode: number): boolean {
    this.answer.status = statusCode;
    return true;
  }

  onData(chunk: Buffer): boolean {
    const a = this.answer;
    if (a.status !== this.expectStatus && a.start.length < 200) a.start += chunk.toString('utf8', 0, 200);
    return true;
  }

  onComplete(): void {
    this.resolve(this.answer);
  }

  onError(err: Error): void {
    this.reject(err);
  }
}

function send(pool: Pool, spec: LoadSpec): Promise<Answer> {
  const options = { method: spec.method, path: spec.path, headers: spec.headers, body: spec.body ?? null };
  return new Promise((resolve, reject) => void pool.dispatch(options, new AnswerHandler(spec.expectStatus, resolve, reject)));
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const perOrigin = Math.ceil(spec.connections / spec.origins.length);
  const pools = spec.origins.map((origin) => new Pool(origin, { connections: perOrigin, pipelining: 1 }));
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let measuring = false;
  let stop = false;

  async function loop(pool: Pool): Promise<void> {
    while (!stop) {
      const t0 = performance.now();
      try {
        const res = await send(pool, spec);
        if (res.status !== spec.expectStatus) {
          errors++;
          firstError ??= `${res.status} ${res.start}`;
        }
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
      }
      if (measuring) latencies.push(performance.now() - t0);
    }
  }

  const loops = Array.from({ length: spec.connections }, (_, i) => loop(pools[i % pools.length]!));
  await new Promise((r) => setTimeout(r, spec.warmupMs));
  measuring = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, spec.durationMs));
  measuring = false;
  const elapsed = performance.now() - started;
  stop = true;
  await Promise.all(loops);
  await Promise.all(pools.map((pool) => pool.close()));
  const sorted = Float64Array.from(latencies).sort();
  return {
    latencies: sorted,
    requests: latencies.length,
    errors,
    perSecond: latencies.length / (elapsed / 1000),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ...(firstError ? { firstError } : {}),
  };
}

if (parentPort && workerData?.loadWorker) {
  const port = parentPort;
  port.on('message', (m: { load: LoadSpec }) => {
    runLoad(m.load).then(
      (result) => port.postMessage({ result }),
      (err: Error) => port.postMessage({ error: err.message }),
    );
  });
}
