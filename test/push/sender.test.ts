import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { createGuardedAgent } from '../../src/push/ssrf/agent.ts';
import type { Resolver } from '../../src/push/ssrf/resolver.ts';
import { MAX_RESPONSE_BYTES, postWebhook } from '../../src/push/deliver/sender.ts';
import { startReceiver, type Receiver } from './helpers.ts';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function receiver(statuses: number[] = []): Promise<Receiver> {
  const r = await startReceiver(statuses);
  open.push(r);
  return r;
}

function agent(allowPrivate: boolean, resolve: Resolver) {
  const a = createGuardedAgent({ allowPrivate, resolve, connectTimeoutMs: 2000 });
  open.push(a);
  return a;
}

const loopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

describe('webhook sender and SSRF guard at connection time', () => {
  it('DNS rebinding: a name public at registration but loopback at delivery is blocked, and the stub gets no connection', async () => {
    const stub = await receiver();
    let lookups = 0;
    // The first answer (what registration saw) is public; the second (delivery) is the stub.
    const rebinding: Resolver = async () => [{ address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
    await rebinding('rebind.example');
    const res = await postWebhook(agent(false, rebinding), `http://rebind.example:${stub.port}/hooks`, {}, '{}', 2000);
    expect(res.statusCode).toBeNull();
    expect(res.error).toContain('blocked');
    expect(lookups).toBe(2);
    expect(stub.connections).toBe(0);
    expect(stub.requests).toHaveLength(0);
  });

  it('blocks when any of the answers is private, and blocks loopback IP literals', async () => {
    const stub = await receiver();
    const mixed: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect((await postWebhook(agent(false, mixed), `http://mixed.example:${stub.port}/`, {}, '{}', 2000)).error).toContain('blocked');
    expect((await postWebhook(agent(false, loopback), `http://127.0.0.1:${stub.port}/`, {}, '{}', 2000)).error).toContain('blocked');
    expect((await postWebhook(agent(false, loopback), `http://[::ffff:127.0.0.1]:${stub.port}/`, {}, '{}', 2000)).error).toContain('blocked');
    expect(stub.connections).toBe(0);
  });

  it('connects to the address the injected resolver checked (the name itself never resolves)', async () => {
    const stub = await receiver();
    const res = await postWebhook(agent(true, loopback), `http://receiver.invalid:${stub.port}/hooks`, { 'content-type': 'application/json' }, '{"a":1}', 2000);
    expect(res).toMatchObject({ statusCode: 200, error: null });
    expect(stub.requests[0]).toMatchObject({ method: 'POST', url: '/hooks', body: '{"a":1}' });
    expect(stub.requests[0]!.headers.host).toBe(`receiver.invalid:${stub.port}`);
  });

  it('does not follow a redirect: 302 is a failure and the redirect target gets nothing', async () => {
    const target = await receiver();
    const redirector = await receiver();
    redirector.respond = () => ({ status: 302, headers: { location: `http://127.0.0.1:${target.port}/stolen` } });
    const res = await postWebhook(agent(true, loopback), redirector.url, {}, '{}', 2000);
    expect(res).toMatchObject({ statusCode: 302, error: 'HTTP 302 (redirects are not followed)' });
    await new Promise((r) => setTimeout(r, 100));
    expect(target.connections).toBe(0);
  });

  it('times out a receiver that never answers', async () => {
    const stub = await receiver();
    stub.respond = () => 'hang';
    const started = Date.now();
    const res = await postWebhook(agent(true, loopback), stub.url, {}, '{}', 300);
    expect(res).toMatchObject({ statusCode: null, error: 'timeout after 300 ms' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('times out a receiver that sends interim 1xx answers forever, counted from the start', async () => {
    // undici restarts its headers timer on every 1xx: only a deadline from the start ends this.
    const sockets = new Set<Socket>();
    const server = createNetServer((socket) => {
      sockets.add(socket);
      socket.once('data', () => {
        const tick = setInterval(() => socket.write('HTTP/1.1 102 Processing\r\n\r\n'), 50);
        socket.once('close', () => clearInterval(tick));
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    open.push({ close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }) });
    const started = Date.now();
    const res = await postWebhook(agent(true, loopback), `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {}, '{}', 300);
    expect(res).toMatchObject({ statusCode: null, error: 'timeout after 300 ms' });
    expect(Date.now() - started).toBeLessThan(5000);
  }, 5_000);

  it('gives a 2xx answer whose body trickles in byte by byte its result within about 2 s, not another whole timeout', async () => {
    // A send must end well inside SHUTDOWN_TIMEOUT_MS: its status is known once the status line
    // came, and the rest of the body only drains the connection.
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const tick = setInterval(() => res.write('.'), 100);
      res.on('close', () => clearInterval(tick));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    open.push({ close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) });
    const started = Date.now();
    const res = await postWebhook(agent(true, loopback), `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {}, '{}', 8000);
    expect(res).toMatchObject({ statusCode: 200, error: null });
    expect(Date.now() - started).toBeLessThan(3500);
  }, 20_000);

  it('reads only a few KB of a huge answer and never returns its text', async () => {
    let written = 0;
    const server = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      pump();
      res.on('close', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    open.push({ close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) });
    const port = (server.address() as AddressInfo).port;
    const res = await postWebhook(agent(true, loopback), `http://127.0.0.1:${port}/`, {}, '{}', 5000);
    expect(res).toMatchObject({ statusCode: 500, error: 'HTTP 500' });
    expect(JSON.stringify(res)).not.toContain('xxxx');
    expect(written).toBeLessThan(50 * 1024 * 1024);
    expect(MAX_RESPONSE_BYTES).toBeLessThanOrEqual(8192);
  });

  it('reports a refused connection', async () => {
    const stub = await receiver();
    const port = stub.port;
    await stub.close();
    open.pop();
    const res = await postWebhook(agent(true, loopback), `http://127.0.0.1:${port}/`, {}, '{}', 2000);
    expect(res).toMatchObject({ statusCode: null, error: 'connection refused' });
  });
});
