/** Little-endian byte writing and LEB128 varints for the segment format. */

export class ByteWriter {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity = 1024) {
    this.bytes = new Uint8Array(Math.max(16, capacity));
  }

  private reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.bytes.length) return;
    let capacity = this.bytes.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  byte(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  /** Unsigned LEB128, for values up to 2^53. */
  varint(value: number): void {
    this.reserve(8);
    while (value >= 0x80) {
      this.bytes[this.length++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.bytes[this.length++] = value;
  }

  raw(bytes: Uint8Array, start = 0, end = bytes.length): void {
    const n = end - start;
    this.reserve(n);
    if (n <= 16) {
      // Postings records are a few bytes: a loop beats allocating a subarray view.
      const out = this.bytes;
      let at = this.length;
      for (let i = start; i < end; i++) out[at++] = bytes[i]!;
    } else {
      this.bytes.set(bytes.subarray(start, end), this.length);
    }
    this.length += n;
  }

  /** A varint length, then the bytes. */
  lengthPrefixed(bytes: Uint8Array): void {
    this.varint(bytes.length);
    this.raw(bytes);
  }

  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** A growable Uint32Array, for build-time columns with millions of entries. */
export class U32Column {
  values = new Uint32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Uint32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
}

/** Reads a varint at `state.pos` and advances it. The format never stores values above 2^32. */
export function readVarint(bytes: Uint8Array, state: { pos: number }): number {
  let pos = state.pos;
  let byte = bytes[pos++]!;
  let value = byte & 0x7f;
  let scale = 0x80;
  while (byte >= 0x80) {
    byte = bytes[pos++]!;
    value += (byte & 0x7f) * scale;
    scale *= 0x80;
  }
  state.pos = pos;
  return value;
}
