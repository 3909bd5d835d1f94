import { Accessor } from '@gltf-transform/core';
import type { Document, Primitive } from '@gltf-transform/core';

/** What {@link conformAttributes} changed. */
export interface ConformReport {
  /** Texture coordinate accessors cut from three components (u, v, w) to two. */
  uvs: number;
  /** Vertices whose skin weights did not sum to 1 and were scaled. */
  weights: number;
}

/**
 * Brings vertex attributes into the shapes glTF allows: `TEXCOORD_n` written with a third component
 * (OBJ `vt u v w`) keeps u and v, and skin weights are scaled to sum to 1 over every `WEIGHTS_n` set
 * (a vertex with no weight at all is bound wholly to its first joint).
 */
export function conformAttributes(document: Document): ConformReport {
  const report: ConformReport = { uvs: 0, weights: 0 };
  const replaced = new Map<Accessor, Accessor>();
  const normalised = new Set<Accessor>();
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      for (const semantic of primitive.listSemantics()) {
        if (!semantic.startsWith('TEXCOORD_')) continue;
        const accessor = primitive.getAttribute(semantic)!;
        if (accessor.getType() !== Accessor.Type.VEC3 && accessor.getType() !== Accessor.Type.VEC4) continue;
        let two = replaced.get(accessor);
        if (!two) {
          two = toVec2(document, accessor);
          replaced.set(accessor, two);
          report.uvs++;
        }
        primitive.setAttribute(semantic, two);
      }
      report.weights += normaliseWeights(primitive, normalised);
    }
  }
  for (const accessor of replaced.keys()) if (accessor.listParents().length <= 1) accessor.dispose();
  return report;
}

/** A VEC2 copy of the first two components of a texture coordinate accessor. */
function toVec2(document: Document, accessor: Accessor): Accessor {
  const count = accessor.getCount();
  const stride = accessor.getElementSize();
  const source = accessor.getArray()!;
  const array = new Float32Array(count * 2);
  const element: number[] = [];
  const normalized = accessor.getNormalized();
  for (let i = 0; i < count; i++) {
    if (normalized) {
      accessor.getElement(i, element);
      array[i * 2] = element[0];
      array[i * 2 + 1] = element[1];
    } else {
      array[i * 2] = source[i * stride];
      array[i * 2 + 1] = source[i * stride + 1];
    }
  }
  return document
    .createAccessor(accessor.getName())
    .setType(Accessor.Type.VEC2)
    .setArray(array)
    .setBuffer(accessor.getBuffer());
}

/** Scales each vertex's weights over all `WEIGHTS_n` sets to sum to 1; returns the vertices changed. */
function normaliseWeights(primitive: Primitive, done: Set<Accessor>): number {
  const sets = primitive
    .listSemantics()
    .filter((semantic) => semantic.startsWith('WEIGHTS_'))
    .sort()
    .map((semantic) => primitive.getAttribute(semantic)!);
  if (sets.length === 0 || sets.every((accessor) => done.has(accessor))) return 0;
  for (const accessor of sets) done.add(accessor);
  const count = sets[0].getCount();
  const element: number[] = [];
  // Normalized integers cannot hold w / sum exactly; the rounding left over goes to the largest weight.
  const steps = sets.length === 1 && sets[0].getNormalized() ? maxInteger(sets[0]) : 0;
  let changed = 0;
  for (let vertex = 0; vertex < count; vertex++) {
    const weights = sets.map((accessor) => accessor.getElement(vertex, []).slice());
    const sum = weights.flat().reduce((total, weight) => total + weight, 0);
    // Float32 sums land within a few ULPs of 1; the validator allows that much.
    if (Math.abs(sum - 1) <= 1e-6) continue;
    changed++;
    sets.forEach((accessor, set) => {
      element.length = 0;
      for (let k = 0; k < weights[set].length; k++) {
        element.push(sum > 0 ? weights[set][k] / sum : set === 0 && k === 0 ? 1 : 0);
      }
      if (steps > 0) {
        const quantized = element.map((weight) => Math.round(weight * steps));
        const largest = quantized.indexOf(Math.max(...quantized));
        quantized[largest] += steps - quantized.reduce((total, weight) => total + weight, 0);
        for (let k = 0; k < element.length; k++) element[k] = quantized[k] / steps;
      }
      accessor.setElement(vertex, element);
    });
  }
  return changed;
}

/** The largest value of a normalized unsigned integer accessor's component type. */
function maxInteger(accessor: Accessor): number {
  return accessor.getComponentType() === Accessor.ComponentType.UNSIGNED_BYTE ? 255 : 65535;
}
