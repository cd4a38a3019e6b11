import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { limitedConnection } from '../../../src/transports/mqtt/frame-limit.ts';

const LIMITS = { maxPacketBytes: 1024 * 1024, maxConnectBytes: 64 * 1024 };

/** A connected pair over real TCP: the server's socket (what the broker wraps) and the client's. */
async function socketPair(): Promise<{ server: Server; brokerSide: Socket; clientSide: Socket }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  const accepted = once(server, 'connection');
  const clientSide = connect(port, '127.0.0.1');
  const [brokerSide] = (await accepted) as [Socket];
  return { server, brokerSide, clientSide };
}

/** The connection as aedes holds it: its errors (the socket closed at the test's end) are handled. */
function wrap(socket: Socket) {
  const connection = limitedConnection(socket, LIMITS, () => {});
  connection.on('error', () => {});
  return connection;
}

describe('the broker connection (limitedConnection)', () => {
  let pair: Awaited<ReturnType<typeof socketPair>>;
  afterEach(() => {
    pair?.clientSide.destroy();
    pair?.brokerSide.destroy();
    pair?.server.close();
  });

  it('sends what aedes writes while corked (a batch of PUBACKs) in one socket write, in order', async () => {
    pair = await socketPair();
    const connection = wrap(pair.brokerSide);
    // Counts the writes the socket makes (one system call each, as libuv writes at once).
    let socketWrites = 0;
    for (const method of ['_write', '_writev'] as const) {
      const original = pair.brokerSide[method] as (...args: unknown[]) => void;
      pair.brokerSide[method] = ((...args: unknown[]) => {
        socketWrites++;
        original.apply(pair.brokerSide, args);
      }) as never;
    }
    const acks = Array.from({ length: 200 }, (_, i) => [Buffer.from([0x40, 0x02]), Buffer.from([i >> 8, i & 0xff])]);
    connection.cork();
    for (const [header, id] of acks) {
      connection.write(header);
      connection.write(id);
    }
    process.nextTick(() => connection.uncork());
    const expected = Buffer.concat(acks.flat());
    let received = Buffer.alloc(0);
    while (received.length < expected.length) {
      const [chunk] = (await once(pair.clientSide, 'data')) as [Buffer];
      received = Buffer.concat([received, chunk]);
    }
    expect(received.equals(expected)).toBe(true);
    expect(socketWrites).toBe(1);
  });

  it('holds a corked write back until a slow reader drains the socket, and loses nothing', async () => {
    pair = await socketPair();
    pair.clientSide.pause();
    const connection = wrap(pair.brokerSide);
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(256 * 1024, i));
    let done = false;
    connection.cork();
    chunks.forEach((c, i) => connection.write(c, i === chunks.length - 1 ? () => (done = true) : undefined));
    connection.uncork();
    await new Promise((r) => setTimeout(r, 200));
    // 16 MB cannot all be in the kernel's buffers while nobody reads.
    expect(done).toBe(false);
    let received = 0;
    let inOrder = true;
    pair.clientSide.on('data', (chunk: Buffer) => {
      for (let k = 0; k < chunk.length; k += 4096) if (chunk[k] !== Math.floor((received + k) / (256 * 1024))) inOrder = false;
      received += chunk.length;
    });
    pair.clientSide.resume();
    while (received < 64 * 256 * 1024) await once(pair.clientSide, 'data');
    expect(inOrder).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(true);
  });
});
