import { Document, Primitive } from '@gltf-transform/core';
import type { TypedArray } from '@gltf-transform/core';
import { cloneDocument, compactPrimitive, prune } from '@gltf-transform/functions';
import type { MeshoptSimplifier, SimplifierFlags } from 'meshoptimizer';
import { meshTriangleCount } from './measure-geometry.ts';
import type { StepContext } from './types.ts';

/** Step name used in logs. */
export const NAME = 'make-lods';

/** Options of {@link makeLods}. */
export interface MakeLodsOptions {
  /** meshoptimizer's simplifier, awaited `ready` before use. */
  simplifier: typeof MeshoptSimplifier;
  /** Share of LOD 0's triangles aimed at by LOD 1 and LOD 2. */
  ratios: readonly [number, number];
  /** First error budget, relative to each mesh's extent; raised when the simplifier stops short of the target. */
  error: number;
  /** Keep open borders where they are, so parts that meet along an edge leave no gap. */
  lockBorder: boolean;
  /** Meshes with fewer triangles keep all of them: there is nothing worth removing. */
  minTriangles: number;
  /** A level is reached when it keeps at most this multiple of its target triangle count. */
  tolerance: number;
  /** Simplify the source document itself instead of a copy: saves memory once LOD 0 is written. */
  consumeSource: boolean;
}

/** Defaults for {@link MakeLodsOptions} (the simplifier must be given). */
export const MAKE_LODS_DEFAULTS: Omit<MakeLodsOptions, 'simplifier'> = {
  ratios: [0.5, 0.15],
  error: 0.01,
  lockBorder: true,
  minTriangles: 64,
  tolerance: 1.5,
  consumeSource: false,
};

/** One level of detail: the document as it stands at that level. */
export interface LodDocument {
  level: 1 | 2;
  document: Document;
}

/**
 * Yields LOD 1 and then LOD 2 of `document`, keeping every node, transform and `extras.group_id` and
 * simplifying only triangle primitives (a shared mesh once). The levels cascade in one document: LOD 2
 * is simplified from LOD 1, which halves its work, so write each level before asking for the next.
 * That document is a copy, or with `consumeSource` the source itself (no copy once LOD 0 is written).
 */
export async function* makeLods(
  document: Document,
  options: Partial<MakeLodsOptions> & Pick<MakeLodsOptions, 'simplifier'>,
  context: StepContext,
): AsyncGenerator<LodDocument> {
  const settings: MakeLodsOptions = { ...MAKE_LODS_DEFAULTS, ...options };
  await settings.simplifier.ready;
  const lod = settings.consumeSource ? document : cloneDocument(document);
  // Judged per mesh, not per primitive: a large mesh split into many small primitives must still shrink.
  const primitives = lod
    .getRoot()
    .listMeshes()
    .filter((mesh) => meshTriangleCount(mesh) >= settings.minTriangles)
    .flatMap((mesh) => mesh.listPrimitives())
    .filter(
      (primitive) => primitive.getMode() === Primitive.Mode.TRIANGLES && primitive.getAttribute('POSITION'),
    );
  // Targets are shares of LOD 0, also when LOD 2 is made from LOD 1.
  const sourceTriangles = new Map(primitives.map((primitive) => [primitive, indexCount(primitive) / 3]));
  const total = [...sourceTriangles.values()].reduce((sum, triangles) => sum + triangles, 0) || 1;

  const levels = [1, 2] as const;
  for (const level of levels) {
    const ratio = settings.ratios[level - 1];
    let done = 0;
    let fallbacks = 0;
    for (const primitive of primitives) {
      const triangles = sourceTriangles.get(primitive)!;
      if (simplifyPrimitive(primitive, triangles, ratio, settings) === 'sloppy') fallbacks++;
      done += triangles;
      context.onProgress?.((level - 1 + done / total) / levels.length);
    }
    if (fallbacks > 0) {
      context.logger.warn(
        `${NAME}: ${fallbacks} primitive(s) needed the sloppy simplifier to reach ${ratio * 100} %`,
      );
    }
    await tidy(lod);
    yield { level, document: lod };
  }
}

/** Gives new accessors the document's buffer (a GLB has exactly one) and drops the replaced ones. */
async function tidy(document: Document): Promise<void> {
  const root = document.getRoot();
  // compactPrimitive leaves its new index accessors without a buffer.
  const buffer = root.listBuffers()[0] ?? document.createBuffer();
  for (const accessor of root.listAccessors()) if (!accessor.getBuffer()) accessor.setBuffer(buffer);
  await document.transform(
    prune({ keepAttributes: true, keepSolidTextures: true, keepExtras: true, keepLeaves: true }),
  );
}

/** How a primitive was treated. */
type Outcome = 'kept' | 'simplified' | 'sloppy';

/**
 * Simplifies one indexed triangle list towards `ratio` of its LOD 0 `sourceTriangles`, raising the error
 * budget, then relaxing seams and borders, and finally going sloppy if the target stays out of reach.
 */
function simplifyPrimitive(
  primitive: Primitive,
  sourceTriangles: number,
  ratio: number,
  settings: MakeLodsOptions,
): Outcome {
  const { simplifier } = settings;
  const triangles = indexCount(primitive) / 3;
  const target = Math.max(3, Math.floor(sourceTriangles * ratio) * 3);
  // Already there (small meshes, or a previous level that went further).
  if (triangles < 2 || triangles * 3 <= target) return 'kept';

  const position = primitive.getAttribute('POSITION')!;
  const positions = floatPositions(position.getArray()!, position.getNormalized());
  const indices = uint32Indices(primitive);
  const reached = (count: number): boolean => count <= target * settings.tolerance;
  const flags: SimplifierFlags[] = settings.lockBorder ? ['LockBorder'] : [];

  let best: Uint32Array = indices;
  let outcome: Outcome = 'kept';
  const attempts: [number, SimplifierFlags[]][] = [
    [settings.error, flags],
    // The simplifier removes the cheapest edges first, so an unbounded budget still stops at the target.
    ...(settings.error < 1 ? [[1, flags] as [number, SimplifierFlags[]]] : []),
    // Permissive lets edges collapse across attribute seams, which beats clustering when seams pin the mesh.
    [1, [...flags, 'Permissive']],
    // Then borders give way too: still better than the sloppy simplifier, which ignores topology.
    ...(settings.lockBorder ? [[1, ['Permissive']] as [number, SimplifierFlags[]]] : []),
  ];
  for (const [error, attemptFlags] of attempts) {
    const [result] = simplifier.simplify(indices, positions, 3, target, error, attemptFlags);
    if (result.length > 0 && result.length < best.length) {
      best = result;
      outcome = 'simplified';
    }
    if (reached(best.length)) break;
  }
  if (!reached(best.length)) {
    // Locked borders and attribute seams can stop the topology-preserving simplifier; clustering cannot stop.
    const [result] = simplifier.simplifySloppy(indices, positions, 3, null, target, 1);
    if (result.length > 0 && result.length < best.length) {
      best = result;
      outcome = 'sloppy';
    }
  }
  if (outcome === 'kept') return outcome;

  const previous = primitive.getIndices();
  const next = Document.fromGraph(primitive.getGraph())!.createAccessor().setType('SCALAR');
  primitive.setIndices(
    next.setBuffer(previous?.getBuffer() ?? null).setArray(best as Uint32Array<ArrayBuffer>),
  );
  if (previous && previous.listParents().length === 1) previous.dispose();
  compactPrimitive(primitive);
  return outcome;
}

/** Indices drawn by a primitive (vertices when it has no index). */
function indexCount(primitive: Primitive): number {
  return primitive.getIndices()?.getCount() ?? primitive.getAttribute('POSITION')?.getCount() ?? 0;
}

/** The primitive's indices as the simplifier wants them; a non-indexed list gets 0…n−1. */
function uint32Indices(primitive: Primitive): Uint32Array {
  const array = primitive.getIndices()?.getArray();
  if (array instanceof Uint32Array) return array;
  if (array) return Uint32Array.from(array);
  const count = primitive.getAttribute('POSITION')!.getCount();
  return Uint32Array.from({ length: count }, (_, i) => i);
}

/** Positions as packed float32, decoding quantized integers the way glTF defines them. */
function floatPositions(array: TypedArray, normalized: boolean): Float32Array {
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
