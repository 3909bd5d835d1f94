import type { Accessor, Primitive } from '@gltf-transform/core';

/** How much each kind of vertex attribute weighs in the simplifier's error, against positions. */
export interface AttributeWeights {
  /** Per component of a unit normal. */
  normal: number;
  /** Per component of the first UV set (texture space, 0–1 across a texture). */
  uv: number;
  /** Per component of the first vertex colour (linear RGB, 0–1). */
  color: number;
}

/** A primitive's attributes packed for meshoptimizer's `simplifyWithAttributes`. */
export interface PackedAttributes {
  /** `weights.length` floats per vertex. */
  attributes: Float32Array;
  /** One weight per float of a vertex. */
  weights: number[];
}

/**
 * Packs the normals, first UV set and first colour of a primitive, each float with its weight, so the simplifier
 * keeps shading and texture placement as well as shape: without them a collapse may pull a flat cap's corner
 * onto its rounded rim, or a logo's corner across the hood. Attributes with weight 0 are left out.
 */
export function simplifierAttributes(primitive: Primitive, weights: AttributeWeights): PackedAttributes {
  const parts: [Accessor, number, number][] = [];
  const normal = primitive.getAttribute('NORMAL');
  const uv = primitive.getAttribute('TEXCOORD_0');
  const color = primitive.getAttribute('COLOR_0');
  if (normal && weights.normal > 0) parts.push([normal, 3, weights.normal]);
  if (uv && weights.uv > 0) parts.push([uv, 2, weights.uv]);
  if (color && weights.color > 0) parts.push([color, 3, weights.color]);
  const stride = parts.reduce((sum, [, size]) => sum + size, 0);
  const count = primitive.getAttribute('POSITION')?.getCount() ?? 0;
  const attributes = new Float32Array(count * stride);
  const element: number[] = [];
  let offset = 0;
  for (const [accessor, size] of parts) {
    for (let i = 0; i < count; i++) {
      // getElement decodes normalized integers (quantized normals, 8-bit colours) to floats.
      accessor.getElement(i, element);
      for (let k = 0; k < size; k++) attributes[i * stride + offset + k] = element[k] ?? 0;
    }
    offset += size;
  }
  return { attributes, weights: parts.flatMap(([, size, weight]) => new Array<number>(size).fill(weight)) };
}

/**
 * Every attribute of a primitive's vertices but its position, normal and tangent, packed `stride` floats a vertex:
 * what copies of a corner must share to be welded into one when only their normals (and the tangents that go
 * with them) tell them apart.
 */
export function weldKeys(primitive: Primitive): { keys: Float32Array; keyStride: number } {
  const accessors = primitive
    .listSemantics()
    .filter((semantic) => !['POSITION', 'NORMAL', 'TANGENT'].includes(semantic))
    .map((semantic) => primitive.getAttribute(semantic)!);
  const keyStride = accessors.reduce((sum, accessor) => sum + accessor.getElementSize(), 0);
  const count = primitive.getAttribute('POSITION')?.getCount() ?? 0;
  const keys = new Float32Array(count * keyStride);
  const element: number[] = [];
  let offset = 0;
  for (const accessor of accessors) {
    const size = accessor.getElementSize();
    for (let i = 0; i < count; i++) {
      accessor.getElement(i, element);
      for (let k = 0; k < size; k++) keys[i * keyStride + offset + k] = element[k];
    }
    offset += size;
  }
  return { keys, keyStride };
}
