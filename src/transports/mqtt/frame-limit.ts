import { Duplex, Transform, type TransformCallback } from 'node:stream';
import type { Socket } from 'node:net';

/** A packet this limit refused: announced too large, or with a malformed length. */
export class FrameRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameRefusedError';
  }
}

/** A packet announced larger than allowed: the connection is closed before its bytes arrive. */
export class FrameTooLargeError extends FrameRefusedError {
  constructor(type: number, length: number, limit: number) {
    super(`MQTT packet of type ${type} announces ${length} bytes, more than ${limit}`);
    this.name = 'FrameTooLargeError';
  }
}

const CONNECT = 1;

/**
 * Reads each MQTT packet's fixed header (type, then the remaining length in 1 to 4 bytes) as the
 * bytes pass and fails as soon as a packet announces more than its limit. aedes would otherwise
 * buffer a whole packet (up to 256 MB) before any check: a CONNECT, before authentication too.
 * The bytes themselves pass unchanged.
 */
export function mqttFrameLimit(limits: { maxPacketBytes: number; maxConnectBytes: number }): Transform {
  let remaining = 0;
  let header: number[] = [];
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      let i = 0;
      while (i < chunk.length) {
        if (remaining > 0) {
          const n = Math.min(remaining, chunk.length - i);
          remaining -= n;
          i += n;
          continue;
        }
        header.push(chunk[i++]!);
        if (header.length === 1) continue;
        if (header[header.length - 1]! & 0x80) {
          if (header.length > 4) return done(new FrameRefusedError('malformed MQTT remaining length'));
          continue;
        }
        const { length } = remainingLength(header, 1);
        const type = header[0]! >> 4;
        const limit = type === CONNECT ? limits.maxConnectBytes : limits.maxPacketBytes;
        if (length > limit) return done(new FrameTooLargeError(type, length, limit));
        remaining = length;
        header = [];
      }
      done(null, chunk);
    },
  });
}

/** The socket as aedes sees it: reads through {@link mqttFrameLimit}, writes straight to the socket. */
export function limitedConnection(socket: Socket, limits: { maxPacketBytes: number; maxConnectBytes: number }, onRefused: (err: Error) => void): Duplex {
  const limiter = mqttFrameLimit(limits);
  limiter.on('error', (err) => {
    // The limiter also errors when aedes destroys the connection with its own reason (e.g. a
    // publish the queue refused): only its own refusals are reported as such.
    if (err instanceof FrameRefusedError) onRefused(err);
    socket.destroy();
  });
  socket.on('error', () => limiter.destroy());
  const connection = Duplex.from({ readable: socket.pipe(limiter), writable: socket });
  // aedes writes each packet corked (mqtt-packet uncorks on the next tick), and the PUBACKs of
  // a whole batch come out in one tick, once it is queued; Duplex.from would pass the buffered
  // pieces on as one socket write, one system call, each: two per PUBACK. Here each packet
  // leaves in one write. Not the whole batch in one: a publisher that keeps Nagle's algorithm
  // on (mqtt.js does) then waited for TCP's delayed acknowledgement, about 20 ms more at low
  // rates (docs/operations.md). Whatever the framing says, every byte is written, in order.
  connection._writev = (chunks, callback) => {
    const bytes = chunks.length === 1 ? (chunks[0]!.chunk as Buffer) : Buffer.concat(chunks.map((c) => c.chunk as Buffer));
    let flowing = true;
    for (let start = 0, end = 0; start < bytes.length; start = end) {
      end = packetEnd(bytes, start);
      flowing = socket.write(bytes.subarray(start, end));
    }
    if (flowing) callback();
    else socket.once('drain', () => callback());
  };
  return connection;
}

/** Where the MQTT packet starting at `start` ends (its fixed header read), at most the end of `bytes`. */
function packetEnd(bytes: Buffer, start: number): number {
  const { length, end } = remainingLength(bytes, start + 1);
  return Math.min(bytes.length, end + length);
}

/**
 * The MQTT remaining length whose bytes start at `at` (1 to 4 of them, 7 bits each, least
 * significant first; no more are read) and where they end; cut short, what the bytes there give.
 */
function remainingLength(bytes: ArrayLike<number>, at: number): { length: number; end: number } {
  let i = at;
  let length = 0;
  for (let shift = 1; i < bytes.length && shift <= 128 ** 3; shift *= 128) {
    const b = bytes[i++]!;
    length += (b & 0x7f) * shift;
    if (!(b & 0x80)) break;
  }
  return { length, end: i };
}
