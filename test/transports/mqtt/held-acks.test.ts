import { describe, expect, it } from 'vitest';
import { createHeldAcks } from '../../../src/transports/mqtt/held-acks.ts';

/** The PUBACKs written, as message ids (4-byte MQTT 5 PUBACKs with reason Success). */
function written() {
  const ids: number[] = [];
  let malformed = 0;
  const write = (bytes: Buffer) => {
    if (bytes.length % 4 !== 0) malformed++;
    for (let i = 0; i < bytes.length; i += 4) {
      if (bytes[i] !== 0x40 || bytes[i + 1] !== 0x02) malformed++;
      ids.push(bytes.readUInt16BE(i + 2));
    }
  };
  return { ids, write, malformed: () => malformed };
}

describe('held PUBACKs', () => {
  it('go out in the order the publishes came, each once its message is queued', () => {
    const out = written();
    const acks = createHeldAcks(out.write);
    const [a, b, c] = [acks.hold(7), acks.hold(8), acks.hold(65535)];
    acks.release(b);
    acks.release(c);
    // 8 and 65535 are queued, but 7 came first and is not.
    expect(out.ids).toEqual([]);
    expect(acks.waiting).toBe(3);
    acks.release(a);
    expect(out.ids).toEqual([7, 8, 65535]);
    expect(out.malformed()).toBe(0);
    expect(acks.waiting).toBe(0);
  });

  it('acknowledges 100,000 messages in order, released two at a time in reverse', () => {
    const out = written();
    const acks = createHeldAcks(out.write);
    for (let i = 0; i < 100_000; i += 2) {
      const first = acks.hold(i % 65536);
      const second = acks.hold((i + 1) % 65536);
      acks.release(second);
      acks.release(first);
    }
    expect(out.ids).toEqual(Array.from({ length: 100_000 }, (_, i) => i % 65536));
    expect(out.malformed()).toBe(0);
    expect(acks.waiting).toBe(0);
  });

  it('writes nothing once the connection is gone: the broker sends those messages again', () => {
    const out = written();
    const acks = createHeldAcks(out.write);
    const a = acks.hold(1);
    const b = acks.hold(2);
    acks.release(a);
    acks.abandon();
    acks.release(b);
    expect(out.ids).toEqual([1]);
    expect(acks.waiting).toBe(0);
  });
});
