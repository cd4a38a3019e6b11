import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobin {
  origin: string;
  /** Which backend answered each request, in order (index into the backends). */
  served: number[];
  close(): Promise<void>;
}

/**
 * A load balancer in front of several API processes, as an operator would put one: every
 * request goes to the next backend in turn (per request, not per connection), so one user's
 * consent flow hops between processes and works only if no process keeps state of its own.
 */
export async function startRoundRobin(backends: string[], port = 0): Promise<RoundRobin> {
  let next = 0;
  const served: number[] = [];
  const server: Server = createServer((req, res) => {
    const i = next++ % backends.length;
    served.push(i);
    const target = new URL(req.url ?? '/', backends[i]);
    const upstream = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host, connection: 'close' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`backend ${i} failed: ${err.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
