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

/** An MQTT PUBLISH (QoS 0) of this payload: fixed header and a four-byte remaining length. */
function publishPacket(payload: Buffer): Buffer {
  const n = payload.length;
  return Buffer.concat([Buffer.from([0x30, (n & 0x7f) | 0x80, ((n >> 7) & 0x7f) | 0x80, ((n >> 14) & 0x7f) | 0x80, (n >> 21) & 0x7f]), payload]);
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

  it('sends each packet aedes writes while corked (a batch of PUBACKs) whole, in one socket write at most, in order', async () => {
    pair = await socketPair();
    const connection = wrap(pair.brokerSide);
    // The bytes of each write the socket makes (one system call each, as libuv writes at once).
    const socketWrites: number[] = [];
    const original = { _write: pair.brokerSide._write, _writev: pair.brokerSide._writev };
    pair.brokerSide._write = ((chunk: Buffer, ...rest: unknown[]) => {
      socketWrites.push(chunk.length);
      (original._write as (...a: unknown[]) => void).call(pair.brokerSide, chunk, ...rest);
    }) as never;
    pair.brokerSide._writev = ((chunks: { chunk: Buffer }[], ...rest: unknown[]) => {
      socketWrites.push(chunks.reduce((n, c) => n + c.chunk.length, 0));
      (original._writev as (...a: unknown[]) => void).call(pair.brokerSide, chunks, ...rest);
    }) as never;
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
    // Never a packet in two writes (Duplex.from alone wrote header and packet id apart).
    expect(socketWrites.every((n) => n % 4 === 0), String(socketWrites.slice(0, 10))).toBe(true);
    expect(socketWrites.length).toBeLessThanOrEqual(acks.length);
  });

  it('holds a corked write back until a slow reader drains the socket, and loses nothing', async () => {
    pair = await socketPair();
    pair.clientSide.pause();
    const connection = wrap(pair.brokerSide);
    // 64 publishes of 256 KiB, their payload bytes the publish's number.
    const chunks = Array.from({ length: 64 }, (_, i) => publishPacket(Buffer.alloc(256 * 1024 - 5, i)));
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
      for (let k = 0; k < chunk.length; k += 4096) {
        const at = received + k;
        if (at % (256 * 1024) >= 5 && chunk[k] !== Math.floor(at / (256 * 1024))) inOrder = false;
      }
      received += chunk.length;
    });
    pair.clientSide.resume();
    while (received < 64 * 256 * 1024) await once(pair.clientSide, 'data');
    expect(inOrder).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(true);
  });
});
