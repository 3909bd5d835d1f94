import { Accessor } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';

/** Step name used in logs. */
export const NAME = 'snap-texcoords';

/**
 * Snaps the UV sets still stored as floats after quantizing (those outside [0, 1], which a normalized integer
 * cannot hold) to a power-of-two grid about as fine as `bits` bits over their extent, the precision gltfpack
 * gives UVs. They stay floats, so they read right without a texture transform (a material bound in the viewer
 * uses them as they are), but their low mantissa bits become zeros, which meshopt's codec stores almost for free.
 * Returns how many UV accessors were snapped.
 */
export function snapTexcoords(document: Document, bits: number): number {
  const snapped = new Set<Accessor>();
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      for (const semantic of primitive.listSemantics()) {
        const uv = primitive.getAttribute(semantic)!;
        if (!semantic.startsWith('TEXCOORD_') || snapped.has(uv)) continue;
        if (uv.getComponentType() !== Accessor.ComponentType.FLOAT) continue;
        // A copy: the array may still be shared with the document this one was cloned from.
        uv.setArray(snapToGrid((uv.getArray() as Float32Array).slice(), bits));
        snapped.add(uv);
      }
    }
  }
  return snapped.size;
}

/** `values` rounded in place to multiples of the largest power of two no coarser than extent / (2^bits − 1). */
function snapToGrid(values: Float32Array<ArrayBuffer>, bits: number): Float32Array<ArrayBuffer> {
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const extent = max - min;
  if (!(extent > 0) || !Number.isFinite(extent)) return values;
  const step = 2 ** Math.floor(Math.log2(extent / (2 ** bits - 1)));
  for (let i = 0; i < values.length; i++) values[i] = Math.round(values[i] / step) * step;
  return values;
}
