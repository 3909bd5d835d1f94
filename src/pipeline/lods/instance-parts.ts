import type { Buffer, Document, Mesh, Node, Scene, TypedArray, mat4 } from '@gltf-transform/core';
import { EXTMeshGPUInstancing } from '@gltf-transform/extensions';
import type { PropertyTable } from '@gltf-transform/extensions';
import { meshVertexCount } from '../../gltf/measure-geometry.ts';
import type { MeshNode } from '../../gltf/measure-geometry.ts';
import { EXTInstanceFeatures } from '../../gltf/ext-instance-features.ts';
import { placementOf } from '../../gltf/node-placement.ts';
import type { Placement } from '../../gltf/node-placement.ts';

/** glTF's TRIANGLES draw mode: three.js draws instances of triangles only, anything else once. */
const TRIANGLES = 4;

/** Part nodes that draw one mesh, written as the instances of one node; each instance one part, by feature id. */
export interface InstanceGroup {
  mesh: Mesh;
  /** The part nodes the instances replace, in feature order. */
  nodes: Node[];
  placements: Placement[];
  features: number[];
}

/**
 * A world matrix as an instance's translation, rotation and scale; null when it shears (a rotated node under a parent
 * scaled unevenly), which no instance transform can hold, or mirrors: three.js turns the winding of a mirrored
 * object around, but not of a mirrored instance, whose front faces would be culled.
 */
function instancePlacementOf(matrix: mat4): Placement | null {
  const placement = placementOf(matrix);
  if (!placement) return null;
  const [x, y, z] = placement.scale;
  return x * y * z > 0 ? placement : null;
}

/** Whether every primitive of a mesh can be drawn instanced: triangles without morph targets. */
function instanceableMesh(mesh: Mesh): boolean {
  return mesh
    .listPrimitives()
    .every((primitive) => primitive.getMode() === TRIANGLES && primitive.listTargets().length === 0);
}

/**
 * The meshes drawn by `sharedAtLeast` part nodes or more whose copies hold `verticesAtLeast` vertices in all. An
 * instanced mesh costs its own accessors, an instancing node and its instance accessors in the JSON whatever its
 * count, so a small shape placed a few times is smaller baked into the batch: of eight models measured, baking won at
 * 96 and 160 vertices in all (4 copies of a 24-vertex box, 20 of an 8-vertex one), instancing from 480 (20 copies of
 * the 24-vertex box; BENCHMARKS.md, "When instances are smaller than baked copies").
 */
export function meshesSharedEnough(
  partNodes: readonly { mesh: Mesh }[],
  sharedAtLeast: number,
  verticesAtLeast: number,
): Set<Mesh> {
  const uses = new Map<Mesh, number>();
  for (const { mesh } of partNodes) uses.set(mesh, (uses.get(mesh) ?? 0) + 1);
  const shared = new Set<Mesh>();
  for (const [mesh, count] of uses)
    if (count >= sharedAtLeast && count * meshVertexCount(mesh) >= verticesAtLeast) shared.add(mesh);
  return shared;
}

/**
 * Where each part node drawing a shared mesh would sit as an instance: only nodes `movable` allows, placed without
 * shear or mirror, of meshes of triangles that two or more such nodes draw.
 */
export function instancePlacements(
  partNodes: readonly MeshNode[],
  shared: (mesh: Mesh) => boolean,
  movable: (node: Node, ancestors: Node[]) => boolean,
): Map<Node, Placement> {
  const byMesh = new Map<Mesh, [Node, Placement][]>();
  const meshOk = new Map<Mesh, boolean>();
  for (const { node, mesh, ancestors, world } of partNodes) {
    if (!shared(mesh) || !movable(node, ancestors)) continue;
    let ok = meshOk.get(mesh);
    if (ok === undefined) meshOk.set(mesh, (ok = instanceableMesh(mesh)));
    const placement = ok ? instancePlacementOf(world) : null;
    if (!placement) continue;
    const list = byMesh.get(mesh);
    if (list) list.push([node, placement]);
    else byMesh.set(mesh, [[node, placement]]);
  }
  const placements = new Map<Node, Placement>();
  for (const list of byMesh.values()) {
    if (list.length < 2) continue;
    for (const [node, placement] of list) placements.set(node, placement);
  }
  return placements;
}

/**
 * Writes each group as one node at the root of `scene` drawing its mesh once per part (`EXT_mesh_gpu_instancing`:
 * the parts' world placements, and each part's feature id in `_FEATURE_ID_0`), whose ids `EXT_instance_features`
 * resolves by `table`, the level's table of parts. `mesh` maps a group's mesh to the document written.
 */
export function writeInstances(
  document: Document,
  groups: readonly InstanceGroup[],
  into: { scene: Scene; buffer: Buffer; table: PropertyTable; featureCount: number },
  mesh: (source: Mesh) => Mesh,
): void {
  if (groups.length === 0) return;
  const instancing = document.createExtension(EXTMeshGPUInstancing);
  const instanceFeatures = document.createExtension(EXTInstanceFeatures);
  const accessor = (type: 'SCALAR' | 'VEC3' | 'VEC4', array: TypedArray) =>
    document.createAccessor().setType(type).setArray(array).setBuffer(into.buffer);
  for (const group of groups) {
    const count = group.placements.length;
    const translations = new Float32Array(count * 3);
    const rotations = new Float32Array(count * 4);
    const scales = new Float32Array(count * 3);
    group.placements.forEach(({ translation, rotation, scale }, at) => {
      translations.set(translation, at * 3);
      rotations.set(rotation, at * 4);
      scales.set(scale, at * 3);
    });
    // Compared as stored: a turn's scale decomposes to 0.9999999999999999, which is 1 as a float.
    const rotated = rotations.some((value, at) => at % 4 !== 3 && value !== 0);
    const scaled = scales.some((value) => value !== 1);
    const batch = instancing
      .createInstancedMesh()
      .setAttribute('TRANSLATION', accessor('VEC3', translations))
      // Floats, whatever the count: the meshopt writer pads a narrower instance attribute to 4 bytes an element
      // without saying so in its buffer view, and readers then take every fourth id for the next.
      .setAttribute('_FEATURE_ID_0', accessor('SCALAR', Float32Array.from(group.features)));
    // Absent attributes are the identity: most repeated parts are only moved.
    if (rotated) batch.setAttribute('ROTATION', accessor('VEC4', rotations));
    if (scaled) batch.setAttribute('SCALE', accessor('VEC3', scales));
    const featureId = instanceFeatures
      .createFeatureID()
      .setFeatureCount(into.featureCount)
      .setAttribute(0)
      .setPropertyTable(into.table);
    const node = document
      .createNode(group.mesh.getName() || 'Instanced parts')
      .setMesh(mesh(group.mesh))
      .setExtension(EXTMeshGPUInstancing.EXTENSION_NAME, batch)
      .setExtension(
        EXTInstanceFeatures.EXTENSION_NAME,
        instanceFeatures.createInstanceFeatures().addFeatureID(featureId),
      );
    into.scene.addChild(node);
  }
}
