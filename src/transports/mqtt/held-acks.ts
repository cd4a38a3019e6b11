/**
 * The PUBACKs of one connection, sent by the subscriber itself once the message is durably
 * queued. mqtt.js acknowledges a publish when its handler calls back and takes the next packet
 * only then, so a connection would carry one message at a time; instead every publish is taken
 * at once (many in flight, up to the Receive Maximum) and its PUBACK waits here.
 *
 * PUBACKs go out in the order the publishes came (MQTT 5, 4.6: a client acknowledges QoS 1
 * messages in the order it received them): one whose batch is queued waits for the older ones.
 * When the connection is gone, nothing more is written: the broker sends the unacknowledged
 * messages again on the next connection of the session, and storing them again is idempotent.
 */
export interface HeldAcks {
  /** A place in line for this publish's PUBACK. */
  hold(messageId: number): Ticket;
  /** The message is queued (or dropped for good): its PUBACK may go once the older ones have. */
  release(ticket: Ticket): void;
  /** PUBACKs still waiting. */
  readonly waiting: number;
  /** The connection is gone: write nothing more. */
  abandon(): void;
}

export interface Ticket {
  readonly messageId: number;
  released: boolean;
}

/**
 * `write` sends bytes on the connection. A PUBACK with reason 0x00 and no properties is four
 * bytes: MQTT 5 (3.4.2.1) lets a Remaining Length of 2 stand for "Success".
 */
export function createHeldAcks(write: (bytes: Buffer) => void, onSent?: (count: number) => void): HeldAcks {
  const line: Ticket[] = [];
  let head = 0;
  let gone = false;
  const flush = () => {
    let n = 0;
    while (head + n < line.length && line[head + n]!.released) n++;
    if (n === 0) return;
    const bytes = Buffer.allocUnsafe(4 * n);
    for (let i = 0; i < n; i++) {
      const id = line[head + i]!.messageId;
      bytes.writeUInt8(0x40, 4 * i);
      bytes.writeUInt8(0x02, 4 * i + 1);
      bytes.writeUInt16BE(id, 4 * i + 2);
    }
    head += n;
    // Compact now and then, so the line does not grow with every message ever received.
    if (head > 1024 && head * 2 > line.length) {
      line.splice(0, head);
      head = 0;
    }
    if (!gone) {
      write(bytes);
      onSent?.(n);
    }
  };
  return {
    hold(messageId) {
      const ticket = { messageId, released: false };
      line.push(ticket);
      return ticket;
    },
    release(ticket) {
      ticket.released = true;
      if (!gone) flush();
    },
    get waiting() {
      return gone ? 0 : line.length - head;
    },
    abandon() {
      gone = true;
      line.length = 0;
      head = 0;
    },
  };
}
