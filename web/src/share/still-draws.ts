/**
 * Rebuilds a loaded model that is only looked at (nothing picked, painted or moved, as in the AR view) into a few
 * draws: every mesh whose geometry and material other meshes share becomes one instance of an InstancedMesh, and
 * the rest are merged into one mesh per material and attribute layout, their placements baked into the vertices.
 * A model of 100,000 parts is then drawn in about one call per material and shared mesh, where it took a call per
 * part. Skinned and morphed meshes, points and lines stay as they are: their shapes change or they are not meshes.
 */
import { BufferAttribute, BufferGeometry, Group, InstancedMesh, Matrix4, Mesh } from 'three';
import type { InterleavedBufferAttribute, Material, Object3D, SkinnedMesh } from 'three';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';

/** Attributes a placement changes: they are baked as 32-bit floats, whatever the file stored. */
const PLACED = new Set(['position', 'normal', 'tangent']);

/**
 * Folds the plain meshes under `root` into instanced and merged meshes, held by one group added to `root` (their
 * placements are relative to it), and answers how many meshes it folded. What cannot be folded stays where it was.
 */
export function stillDraws(root: Object3D): number {
  root.updateWorldMatrix(true, true);
  const toRoot = new Matrix4().copy(root.matrixWorld).invert();
  const meshes: Mesh[] = [];
  root.traverse((object) => {
    if (object !== root && foldable(object)) meshes.push(object as Mesh);
  });
  // Each mesh's placement relative to `root`, worked out once.
  const placements = new Map(
    meshes.map((mesh) => [mesh, new Matrix4().multiplyMatrices(toRoot, mesh.matrixWorld)]),
  );
  const placement = (mesh: Mesh) => placements.get(mesh)!;

  const shared = new Map<string, Mesh[]>();
  for (const mesh of meshes) {
    const key = `${mesh.geometry.uuid}/${(mesh.material as Material).uuid}`;
    const list = shared.get(key);
    if (list) list.push(mesh);
    else shared.set(key, [mesh]);
  }
  const group = new Group();
  group.name = 'Still draws';
  const toMerge = new Map<string, { material: Material; geometries: BufferGeometry[] }>();
  for (const list of shared.values()) {
    // An instance cannot turn its faces round: a mirrored placement is merged, with its winding reversed.
    const upright = list.filter((mesh) => placement(mesh).determinant() >= 0);
    const instanced = new Set(upright.length >= 2 ? upright : []);
    if (instanced.size > 0) group.add(instancedMesh(upright, placement));
    for (const mesh of list) {
      if (instanced.has(mesh)) continue;
      const geometry = placedGeometry(mesh.geometry, placement(mesh));
      const material = mesh.material as Material;
      const key = `${material.uuid}/${layoutOf(geometry)}`;
      const bucket = toMerge.get(key) ?? { material, geometries: [] };
      bucket.geometries.push(geometry);
      toMerge.set(key, bucket);
    }
  }
  for (const { material, geometries } of toMerge.values()) {
    const geometry = geometries.length === 1 ? geometries[0]! : mergeGeometries(geometries);
    if (!geometry) throw new Error('The model could not be merged for display');
    const merged = new Mesh(geometry, material);
    merged.name = material.name;
    group.add(merged);
  }
  for (const mesh of meshes) mesh.removeFromParent();
  root.add(group);
  return meshes.length;
}

/** A plain mesh with one material: what can be instanced or merged without changing how it looks. */
function foldable(object: Object3D): boolean {
  const mesh = object as Mesh;
  return (
    mesh.isMesh === true &&
    !(mesh as SkinnedMesh).isSkinnedMesh &&
    !(mesh as unknown as InstancedMesh).isInstancedMesh &&
    !Array.isArray(mesh.material) &&
    (mesh.morphTargetInfluences?.length ?? 0) === 0 &&
    mesh.geometry.groups.length === 0 &&
    mesh.geometry.getAttribute('position') !== undefined
  );
}

/** One InstancedMesh drawing `meshes` (one geometry and material) at their placements. */
function instancedMesh(meshes: Mesh[], placement: (mesh: Mesh) => Matrix4): InstancedMesh {
  const first = meshes[0]!;
  const instanced = new InstancedMesh(first.geometry, first.material, meshes.length);
  meshes.forEach((mesh, at) => instanced.setMatrixAt(at, placement(mesh)));
  instanced.instanceMatrix.needsUpdate = true;
  instanced.name = first.name;
  // The instances spread over the model: culled as a whole, by a sphere that holds them all.
  instanced.computeBoundingSphere();
  return instanced;
}

/** A copy of `geometry` with `matrix` baked into its vertices, de-interleaved, its winding kept facing out. */
function placedGeometry(geometry: BufferGeometry, matrix: Matrix4): BufferGeometry {
  const placed = new BufferGeometry();
  for (const [name, attribute] of Object.entries(geometry.attributes))
    placed.setAttribute(name, plainCopy(attribute, PLACED.has(name)));
  if (geometry.index) placed.setIndex(plainCopy(geometry.index, false));
  placed.applyMatrix4(matrix);
  if (matrix.determinant() < 0) reverseWinding(placed);
  return placed;
}

/** A plain (not interleaved) copy of an attribute: its values as 32-bit floats when `float`, else as stored. */
function plainCopy(attribute: BufferAttribute | InterleavedBufferAttribute, float: boolean): BufferAttribute {
  if (!float && !('isInterleavedBufferAttribute' in attribute)) return attribute.clone();
  const { count, itemSize } = attribute;
  if (float) {
    const array = new Float32Array(count * itemSize);
    // Read denormalized: a quantized attribute gives its real values.
    for (let at = 0; at < count; at++)
      for (let component = 0; component < itemSize; component++)
        array[at * itemSize + component] = attribute.getComponent(at, component);
    return new BufferAttribute(array, itemSize);
  }
  const { data, offset } = attribute as InterleavedBufferAttribute;
  const stored = data.array;
  const array = new (stored.constructor as new (length: number) => typeof stored)(count * itemSize);
  for (let at = 0; at < count; at++)
    for (let component = 0; component < itemSize; component++)
      array[at * itemSize + component] = stored[at * data.stride + offset + component]!;
  return new BufferAttribute(array, itemSize, attribute.normalized);
}

/** Turns every triangle round (its second and third corners swapped), so a mirrored copy faces out again. */
function reverseWinding(geometry: BufferGeometry): void {
  if (!geometry.index) {
    const count = geometry.getAttribute('position').count;
    geometry.setIndex(Array.from({ length: count }, (_, at) => at));
  }
  const index = geometry.index!.array;
  for (let at = 0; at + 2 < index.length; at += 3) {
    const second = index[at + 1]!;
    index[at + 1] = index[at + 2]!;
    index[at + 2] = second;
  }
}

/** The attributes a geometry has and how each is stored: only geometries alike in this can be merged. */
function layoutOf(geometry: BufferGeometry): string {
  const names = Object.keys(geometry.attributes).sort();
  const parts = names.map((name) => {
    const attribute = geometry.getAttribute(name) as BufferAttribute;
    return `${name}:${attribute.itemSize}:${attribute.array.constructor.name}:${attribute.normalized}`;
  });
  return `${parts.join(',')}|${geometry.index ? 'indexed' : 'list'}`;
}
