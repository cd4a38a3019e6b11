/**
 * Unsigned and zigzag varints over plain numbers (up to 2^53), for the compact blobs of the
 * history buckets and the latest-values rows. Arithmetic instead of bit operators: epoch
 * milliseconds do not fit in 32 bits.
 */
export class ByteWriter {
  private buf: Buffer;
  private pos = 0;

  /**
   * `scratch`: a buffer to write into, which done() copies out of, so an encoder called for
   * every message reuses one buffer instead of growing a new one each time ({@link scratch}).
   */
  constructor(scratch?: Buffer) {
    this.buf = scratch ?? Buffer.allocUnsafe(1024);
  }

  /** The buffer written into: the one given, or a larger one if it had to grow. */
  get scratch(): Buffer {
    return this.buf;
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    bigger.set(this.buf.subarray(0, this.pos));
    this.buf = bigger;
  }

  uint(value: number): void {
    this.room(8);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) + 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  /** A signed integer: 0, -1, 1, -2 ... become 0, 1, 2, 3 ... */
  int(value: number): void {
    this.uint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  /** A length-prefixed UTF-8 string. */
  text(value: string): void {
    const n = Buffer.byteLength(value);
    this.uint(n);
    this.room(n);
    this.pos += this.buf.write(value, this.pos, 'utf8');
  }

  /** Length-prefixed bytes. */
  bytes(value: Uint8Array): void {
    this.uint(value.length);
    this.room(value.length);
    // TypedArray set, not Buffer copy: for the few dozen bytes of a payload, a call into C++
    // costs more than the copy.
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  done(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}

export class ByteReader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  get atEnd(): boolean {
    return this.pos >= this.buf.length;
  }

  uint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new Error('corrupt store blob: a number runs past its end');
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
  }

  int(): number {
    const z = this.uint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  text(): string {
    const n = this.uint();
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }

  /** Start and end of the next length-prefixed bytes, without copying them. */
  span(): [number, number] {
    const n = this.uint();
    const start = this.pos;
    this.pos += n;
    if (this.pos > this.buf.length) throw new Error('corrupt store blob: bytes run past its end');
    return [start, this.pos];
  }
}
