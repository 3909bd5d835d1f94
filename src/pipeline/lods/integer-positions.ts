import type { Document, Mesh } from '@gltf-transform/core';
import type { InstancedMesh } from '@gltf-transform/extensions';
import { Accessor, Node } from '@gltf-transform/core';

/** Step name used in logs. */
export const NAME = 'integer-positions';

/**
 * Rewrites the positions glTF-Transform's `quantize` left as normalized 16-bit integers into the plain integers of
 * their grid, as gltfpack stores them, and scales each mesh's node to match. `quantize` spreads a 14-bit grid over
 * the whole 16-bit range (each value shifted up and its top bits copied below), which widens the differences
 * between neighbouring vertices that meshopt's codec stores; the plain grid values are four times smaller, so the
 * same positions encode in fewer bytes, and they decode to the grid exactly instead of to within a rounding of it.
 * `bits` must be the position bits `quantize` used. A mesh drawn as instances scales each instance instead.
 * Documents with skins, morph targets or volume materials are left as they are: their positions are also read
 * through transforms this does not adjust.
 * Returns how many position accessors were rewritten.
 */
export function integerPositions(document: Document, bits: number): number {
  const root = document.getRoot();
  const meshes = root.listMeshes();
  if (!meshes.every(plainMesh)) return 0;
  // quantize stored round(|x| · (2^(bits−1) − 1)) shifted left by `shift`, its top bits repeated below.
  const shift = 16 - bits;
  const steps = 2 ** (bits - 1) - 1;
  const rewritten = new Set<Accessor>();
  for (const mesh of meshes) {
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (!position) continue;
      if (position.getComponentType() !== Accessor.ComponentType.SHORT || !position.getNormalized()) return 0;
    }
  }
  for (const mesh of meshes) {
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (!position || rewritten.has(position)) continue;
      const stored = position.getArray() as Int16Array;
      const grid = new Int16Array(stored.length);
      for (let i = 0; i < stored.length; i++) grid[i] = Math.sign(stored[i]) * (Math.abs(stored[i]) >> shift);
      position.setArray(grid).setNormalized(false);
      rewritten.add(position);
    }
    for (const parent of mesh.listParents()) {
      if (!(parent instanceof Node)) continue;
      const batch = parent.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing');
      // The grid value q stood for q / steps of the node's unit: the node now scales by that step, or each of its
      // instances, whose transforms apply first.
      if (batch) scaleInstances(document, batch, 1 / steps);
      else {
        const scale = parent.getScale();
        parent.setScale([scale[0] / steps, scale[1] / steps, scale[2] / steps]);
      }
    }
  }
  return rewritten.size;
}

/** Whether a mesh's positions reach the screen only through its nodes' own transforms. */
function plainMesh(mesh: Mesh): boolean {
  if (mesh.listPrimitives().some((primitive) => primitive.listTargets().length > 0)) return false;
  if (
    mesh.listPrimitives().some((primitive) => primitive.getMaterial()?.getExtension('KHR_materials_volume'))
  )
    return false;
  return mesh
    .listParents()
    .every(
      (parent) =>
        !(parent instanceof Node) || (parent.getSkin() === null && parent.listChildren().length === 0),
    );
}

/** Multiplies every instance's scale by `factor`: a new `SCALE` attribute, ones where the instances had none. */
function scaleInstances(document: Document, batch: InstancedMesh, factor: number): void {
  const count = batch.listAttributes()[0]?.getCount() ?? 0;
  const before = batch.getAttribute('SCALE');
  const scales = new Float32Array(count * 3);
  const scale = [1, 1, 1];
  for (let at = 0; at < count; at++) {
    before?.getElement(at, scale);
    scales.set([scale[0]! * factor, scale[1]! * factor, scale[2]! * factor], at * 3);
  }
  const buffer = batch.listAttributes()[0]?.getBuffer() ?? null;
  batch.setAttribute('SCALE', document.createAccessor().setType('VEC3').setArray(scales).setBuffer(buffer));
  if (before && before.listParents().every((parent) => parent === document.getRoot())) before.dispose();
}
