// Byte-level steps of the OBJ parser: reading a line's words without decoding it, and growing the arrays it fills.

/** Whether a keyword ends at `at` (a blank, a line end or the end of the data follows). */
export function wordEnds(bytes: Uint8Array, at: number, end: number): boolean {
  return at >= end || bytes[at] <= 0x20;
}

/** The first byte at or after `at` that is not a blank within the line (a line end is not a blank). */
export function skipBlanks(bytes: Uint8Array, at: number, end: number): number {
  while (at < end) {
    const c = bytes[at];
    if (c > 0x20 || c === 0x0a) break;
    at++;
  }
  return at;
}

/** The start of the line after the one holding `at`. */
export function nextLine(bytes: Uint8Array, at: number, end: number): number {
  at = skipBlanks(bytes, at, end);
  if (at >= end) return end;
  if (bytes[at] === 0x0a) return at + 1;
  const newline = bytes.indexOf(0x0a, at);
  return newline < 0 || newline >= end ? end : newline + 1;
}

/** A copy half again as long of a float array being filled, rounded up to 6 values so it stays whole pairs and triples. */
export function grow(array: Float32Array<ArrayBuffer>): Float32Array<ArrayBuffer> {
  const grown = new Float32Array(Math.ceil((array.length * 1.5) / 6) * 6);
  grown.set(array);
  return grown;
}

/** A copy of an index array being filled, twice as long. */
export function growInt(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(array.length * 2);
  grown.set(array);
  return grown;
}
