// A primitive's indices and vertex attributes as the simplifier wants them: packed float32 and 32-bit indices.
import type { Accessor, Primitive, TypedArray } from '@gltf-transform/core';

/** Indices drawn by a primitive (vertices when it has no index). */
export function indexCount(primitive: Primitive): number {
  return primitive.getIndices()?.getCount() ?? primitive.getAttribute('POSITION')?.getCount() ?? 0;
}

/** The primitive's indices as the simplifier wants them; a non-indexed list gets 0…n−1. */
export function uint32Indices(primitive: Primitive): Uint32Array {
  const array = primitive.getIndices()?.getArray();
  if (array instanceof Uint32Array) return array;
  if (array) return Uint32Array.from(array);
  const count = primitive.getAttribute('POSITION')!.getCount();
  return Uint32Array.from({ length: count }, (_, i) => i);
}

/** Positions as packed float32, decoding quantized integers the way glTF defines them. */
export function floatPositions(accessor: Accessor): Float32Array {
  return floatArray(accessor.getArray()!, accessor.getNormalized());
}

/** Normals as packed float32, or undefined when the primitive has none. */
export function floatNormals(primitive: Primitive): Float32Array | undefined {
  const normal = primitive.getAttribute('NORMAL');
  return normal ? floatArray(normal.getArray()!, normal.getNormalized()) : undefined;
}

/** Colours as packed float32 RGB, alpha dropped. */
export function floatColors(accessor: Accessor): Float32Array {
  const count = accessor.getCount();
  const result = new Float32Array(count * 3);
  const element: number[] = [0, 0, 0, 0];
  for (let i = 0; i < count; i++) {
    accessor.getElement(i, element);
    result.set([element[0], element[1], element[2]], i * 3);
  }
  return result;
}

/** A typed array as float32, decoding normalized integers the way glTF defines them. */
export function floatArray(array: TypedArray, normalized: boolean): Float32Array {
  if (array instanceof Float32Array) return array;
  const result = new Float32Array(array.length);
  const scale = !normalized
    ? 1
    : array instanceof Int8Array
      ? 127
      : array instanceof Uint8Array
        ? 255
        : array instanceof Int16Array
          ? 32767
          : array instanceof Uint16Array
            ? 65535
            : 1;
  for (let i = 0; i < array.length; i++) result[i] = normalized ? Math.max(array[i] / scale, -1) : array[i];
  return result;
}
