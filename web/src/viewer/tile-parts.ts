/**
 * Splits a loaded tile's meshes (or a batched level's: a model of many parts draws them a few primitives per
 * material) by the part they draw (`EXT_mesh_features` ids resolved to a `group_id` by the
 * tile's `EXT_structural_metadata` table), so each part is a mesh of its own, tagged as plain models' nodes are.
 * It runs on the main thread for every tile that arrives, before the tile can be drawn: it sorts the index in two
 * passes over typed arrays (count, then place) and gives a primitive of one part its own mesh back untouched.
 */
import { Box3, BufferAttribute, BufferGeometry, Mesh, Quaternion, Sphere, Vector3 } from 'three';
import type { Object3D, TypedArray } from 'three';
import { GLTFMeshFeaturesExtension, GLTFStructuralMetadataExtension } from '3d-tiles-renderer/plugins';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { markBatched, type BatchSource } from './part-batches.ts';
import { expandInstancedParts } from './instance-parts.ts';
import { markShared } from './part-instances.ts';
import { partRowReader, type PartTable } from './part-table-reader.ts';

/**
 * A loader of a model's levels: meshopt-compressed, and reading the feature ids and table of parts a batched
 * level carries, so {@link splitByPart} can give each part its mesh back.
 */
export function createPartsLoader(): GLTFLoader {
  return new GLTFLoader()
    .setMeshoptDecoder(MeshoptDecoder)
    .register(() => new GLTFStructuralMetadataExtension())
    .register(() => new GLTFMeshFeaturesExtension());
}

/** What GLTFLoader names the first feature id attribute (glTF `_FEATURE_ID_0`, lower-cased). */
const FEATURE_ATTRIBUTE = '_feature_id_0';

/** Feature id sets the mesh-features plugin attaches to a primitive's mesh. */
interface FeatureIds {
  getFeatureInfo(): { propertyTable: number | null }[];
}

/**
 * Replaces each instanced part of a level by a mesh of its own (instance-parts.ts) and each primitive of a tile by
 * one mesh per part it draws (sharing the primitive's vertex buffers, each with the triangles of its part), tagged
 * with the part's `group_id` as plain models' nodes are; answers them.
 * Each split part is marked with its primitive, so the view can draw the parts still plain merged again; each mesh
 * left whole that shares its geometry with another is marked with its place, so the view can draw those instanced.
 */
export function splitByPart(scene: Object3D): Map<string, Mesh[]> {
  // A level's instanced parts first: each instance becomes a mesh of its own, shared with the others.
  const parts = expandInstancedParts(scene);
  const add = (groupId: string, mesh: Mesh) => {
    const list = parts.get(groupId);
    if (list) list.push(mesh);
    else parts.set(groupId, [mesh]);
  };
  const primitives: Mesh[] = [];
  scene.traverse((object) => {
    if ((object as Mesh).isMesh) primitives.push(object as Mesh);
  });
  const whole: Mesh[] = [];
  for (const mesh of primitives) {
    const features = mesh.geometry.getAttribute(FEATURE_ATTRIBUTE) as BufferAttribute | undefined;
    const table = mesh.userData.structuralMetadata as PartTable | undefined;
    const tableIndex = (mesh.userData.meshFeatures as FeatureIds | undefined)?.getFeatureInfo()[0]
      ?.propertyTable;
    const index = mesh.geometry.index;
    if (!features || !table || tableIndex == null || !index || !mesh.parent) {
      whole.push(mesh);
      continue;
    }
    const byTriangle = featuresOfTriangles(index, features);
    const rowOf = partRowReader(table, tableIndex);
    if (byTriangle.counts.size === 1) {
      // The whole primitive is one part: tag it as it stands rather than copy its index.
      const row = rowOf(byTriangle.counts.keys().next().value!);
      if (typeof row.group_id === 'string') {
        tagPart(mesh, row, row.group_id, add);
        whole.push(mesh);
        continue;
      }
    }
    const source: BatchSource = {
      parent: mesh.parent,
      position: new Vector3(),
      quaternion: new Quaternion(),
      scale: new Vector3(),
      indexCount: index.count,
      IndexArray: index.array.constructor as BatchSource['IndexArray'],
    };
    mesh.matrix.decompose(source.position, source.quaternion, source.scale);
    for (const [feature, triangles] of trianglesByFeature(index, byTriangle)) {
      const row = rowOf(feature);
      if (typeof row.group_id !== 'string') continue;
      const geometry = new BufferGeometry();
      for (const [name, attribute] of Object.entries(mesh.geometry.attributes)) {
        geometry.setAttribute(name, attribute);
      }
      geometry.setIndex(new BufferAttribute(triangles, 1));
      boundTriangles(geometry);
      const part = new Mesh(geometry, mesh.material);
      part.matrix.copy(mesh.matrix);
      part.matrix.decompose(part.position, part.quaternion, part.scale);
      mesh.parent.add(part);
      markBatched(part, source);
      tagPart(part, row, row.group_id, add);
    }
    mesh.parent.remove(mesh);
    // The split meshes hold its attributes; only its own index goes.
    mesh.geometry.setIndex(null);
    mesh.geometry.dispose();
  }
  markShared(whole);
  return parts;
}

/**
 * Gives a split part the bounds of its own triangles: three.js would measure every vertex of the shared buffers,
 * so framing, culling and the selection's box would take the part for the whole primitive.
 */
function boundTriangles(geometry: BufferGeometry): void {
  const position = geometry.getAttribute('position');
  const indices = geometry.index!.array;
  const box = new Box3();
  const point = new Vector3();
  for (let at = 0; at < indices.length; at++)
    box.expandByPoint(point.fromBufferAttribute(position, indices[at]!));
  geometry.boundingBox = box;
  geometry.boundingSphere = box.getBoundingSphere(new Sphere());
}

/** Names `mesh` and tags it with its part's `group_id`, then hands it to `add`. */
function tagPart(
  mesh: Mesh,
  row: { name?: unknown },
  groupId: string,
  add: (groupId: string, mesh: Mesh) => void,
): void {
  mesh.name = typeof row.name === 'string' ? row.name : groupId;
  mesh.userData.group_id = groupId;
  add(groupId, mesh);
}

/** Each triangle's feature id (that of its first vertex) and how many triangles each feature id has. */
interface TriangleFeatures {
  featureOf: Int32Array;
  counts: Map<number, number>;
}

/** Reads the feature id of every triangle of `index`. */
function featuresOfTriangles(index: BufferAttribute, features: BufferAttribute): TriangleFeatures {
  const indices = index.array;
  const triangleCount = Math.floor(index.count / 3);
  const featureOf = new Int32Array(triangleCount);
  const counts = new Map<number, number>();
  for (let triangle = 0; triangle < triangleCount; triangle++) {
    const feature = Math.round(features.getX(indices[triangle * 3]!));
    featureOf[triangle] = feature;
    counts.set(feature, (counts.get(feature) ?? 0) + 1);
  }
  return { featureOf, counts };
}

/** The triangles (vertex indices, three each, in an array of the index's own type) of each feature id. */
function trianglesByFeature(
  index: BufferAttribute,
  { featureOf, counts }: TriangleFeatures,
): Map<number, TypedArray> {
  const indices = index.array;
  const IndexArray = indices.constructor as new (length: number) => TypedArray;
  const byFeature = new Map<number, TypedArray>();
  const filled = new Map<number, number>();
  for (const [feature, count] of counts) {
    byFeature.set(feature, new IndexArray(count * 3));
    filled.set(feature, 0);
  }
  for (let triangle = 0; triangle < featureOf.length; triangle++) {
    const feature = featureOf[triangle]!;
    const target = byFeature.get(feature)!;
    let at = filled.get(feature)!;
    const from = triangle * 3;
    target[at++] = indices[from]!;
    target[at++] = indices[from + 1]!;
    target[at++] = indices[from + 2]!;
    filled.set(feature, at);
  }
  return byFeature;
}
