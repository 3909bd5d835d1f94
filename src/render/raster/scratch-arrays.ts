/**
 * Render buffers kept from one render to the next in the same thread. A thumbnail needs some 16 MB of buffers
 * (1024² samples); allocating them fresh costs page faults on every render (12 ms here, against under 1 ms to
 * clear kept ones), and two threads faulting in one process slow each other down. A scratch array is only good
 * until the next request for the same name, so a caller uses it synchronously, never across an `await`.
 */

/** Arrays larger than this are allocated for the render alone and not kept. */
const MAX_KEPT_ELEMENTS = 1 << 22;

const kept = new Map<string, Float32Array | Int32Array>();

/** A Float32Array of exactly `length` elements, reused when `name` asked for one as large before; contents undefined. */
export function scratchFloat32(name: string, length: number): Float32Array {
  return scratch(name, length, Float32Array);
}

/** An Int32Array of exactly `length` elements, reused when `name` asked for one as large before; contents undefined. */
export function scratchInt32(name: string, length: number): Int32Array {
  return scratch(name, length, Int32Array);
}

function scratch<T extends Float32Array | Int32Array>(
  name: string,
  length: number,
  Kind: new (length: number) => T,
): T {
  if (length > MAX_KEPT_ELEMENTS) return new Kind(length);
  const previous = kept.get(name);
  if (previous instanceof Kind && previous.length >= length) return previous.subarray(0, length) as T;
  const array = new Kind(length);
  kept.set(name, array);
  return array;
}
