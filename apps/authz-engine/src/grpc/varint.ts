// Protobuf base-128 varints for the encoders that write wire bytes by hand (list items, bulk echoes).

/** Bytes of `value` (a non-negative 32-bit integer) as a varint. */
export function varintLength(value: number): number {
  let length = 1;
  while (value >= 0x80) {
    value >>>= 7;
    length++;
  }
  return length;
}

/** Writes `value` as a varint at `offset`; returns the offset after it. */
export function writeVarint(buffer: Buffer, offset: number, value: number): number {
  while (value >= 0x80) {
    buffer[offset++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buffer[offset++] = value;
  return offset;
}
