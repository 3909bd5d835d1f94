import { PropertyType } from '@gltf-transform/core';
import type {
  Accessor,
  Document,
  Material,
  Mesh,
  Node,
  Primitive,
  Property,
  TypedArray,
  mat4,
} from '@gltf-transform/core';
import { meshNodesUnder } from '../../gltf/measure-geometry.ts';
import { partName } from '../extract-parts.ts';
import { addPartFeatures } from '../tiles/part-features.ts';
import type { TilePart } from '../tiles/triangle-soup.ts';
import {
  bakeNormals,
  determinant3,
  isIdentity,
  transformPositions,
} from '../../render/scene/transform-vertices.ts';
import type { StepContext } from '../types.ts';
import { instancePlacements, meshesSharedEnough, writeInstances } from './instance-parts.ts';
import { goesOnceBatched, recordRemovedParts, retireBatchedNode } from './retired-part-nodes.ts';
import type { InstanceGroup } from './instance-parts.ts';

/** Step name used in logs. */
export const NAME = 'batch-parts';

/** glTF's TRIANGLES draw mode, the only one merged. */
const TRIANGLES = 4;

/** Options of {@link batchParts}. */
export interface BatchPartsOptions {
  /**
   * Batch only a document of more part nodes than this. Each part costs a node, a mesh and three or four
   * accessors of JSON (600 to 800 bytes) against one or two bytes a vertex of feature id once batched, so a
   * model of a few parts keeps one node per part as it came, and a model of many small parts sheds most of its JSON.
   */
  aboveParts: number;
  /**
   * A mesh drawn by this many nodes or more stays one mesh, drawn as instances where its nodes allow and by its
   * nodes where not: copying it into the batch once per node would cost more vertex bytes than its placements.
   */
  sharedAtLeast: number;
  /** ...and only when its copies hold this many vertices in all (instance-parts.ts, meshesSharedEnough). */
  instanceVertices: number;
}

/** Defaults for {@link BatchPartsOptions}. */
export const BATCH_PARTS_DEFAULTS: BatchPartsOptions = {
  aboveParts: 64,
  sharedAtLeast: 4,
  instanceVertices: 300,
};

/** Whether a document has more part nodes than {@link batchParts} leaves as they are: a count, no copy. */
export function hasManyParts(document: Document, options: Partial<BatchPartsOptions> = {}): boolean {
  const { aboveParts } = { ...BATCH_PARTS_DEFAULTS, ...options };
  const root = document.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  let count = 0;
  scene?.traverse((node) => {
    if (node.getMesh()) count++;
  });
  return count > aboveParts;
}

/** A part's primitive on its way into a batch, with the world matrix its vertices are baked with. */
export interface Piece {
  primitive: Primitive;
  matrix: mat4;
  feature: number;
}

/** Primitives of one material and one vertex layout, merged into one. */
export interface Batch {
  material: Material | null;
  semantics: string[];
  pieces: Piece[];
}

/**
 * What {@link planBatch} found to merge: the batches, the parts' table, the nodes whose meshes they replace, and the
 * nodes sharing a mesh that become instances of one node.
 */
export interface BatchPlan {
  batches: Batch[];
  parts: TilePart[];
  /** The part nodes drawn by the batch, in feature order. */
  nodes: Node[];
  /** Part nodes drawing a shared mesh, one group per mesh, drawn as its instances. */
  instances: InstanceGroup[];
}

/**
 * Which parts of a document of many parts merge, and how: one batch per material and vertex layout. A mesh that
 * many nodes share stays one mesh, drawn as instances of one node, one instance a part
 * (`EXT_mesh_gpu_instancing`), where its nodes allow (instance-parts.ts). Parts that cannot merge stay nodes of
 * their own: skinned, morphed or animated ones, nodes with extensions, points and lines, primitives with
 * extensions, and shared meshes placed mirrored or sheared. Reads the document only; null if too few would merge.
 */
export function planBatch(document: Document, options: Partial<BatchPartsOptions>): BatchPlan | null {
  const settings = { ...BATCH_PARTS_DEFAULTS, ...options };
  const root = document.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  if (!scene) return null;
  const partNodes = meshNodesUnder(scene.listChildren());
  if (partNodes.length <= settings.aboveParts) return null;
  const sharedMeshes = meshesSharedEnough(partNodes, settings.sharedAtLeast, settings.instanceVertices);
  const shared = sharedMeshes.has.bind(sharedMeshes);
  const animated = animatedNodes(document);
  const plain = (node: Node, ancestors: Node[]) =>
    typeof node.getExtras().group_id === 'string' &&
    !node.getSkin() &&
    // A node's own extensions (GPU instancing above all) say more than one placement of its mesh.
    node.listExtensions().length === 0 &&
    ![node, ...ancestors].some((each) => animated.has(each));
  // A node that cannot go once drawn so (one holding other nodes) stays marked, as a batched one does.
  const placements = instancePlacements(partNodes, shared, plain);
  const batches = new Map<string, Batch>();
  const parts: TilePart[] = [];
  const nodes: Node[] = [];
  const instances = new Map<Mesh, InstanceGroup>();
  const materialIds = new Map<Material | null, number>();
  const materialId = (material: Material | null): number => {
    let id = materialIds.get(material);
    if (id === undefined) materialIds.set(material, (id = materialIds.size));
    return id;
  };
  partNodes.forEach(({ node, mesh, ancestors, world: matrix }, index) => {
    const placement = placements.get(node);
    if (placement) {
      let group = instances.get(mesh);
      if (!group) instances.set(mesh, (group = { mesh, nodes: [], placements: [], features: [] }));
      group.nodes.push(node);
      group.placements.push(placement);
      group.features.push(parts.length);
      parts.push({ group_id: node.getExtras().group_id as string, name: partName(node, mesh, index) });
      return;
    }
    if (shared(mesh) || !plain(node, ancestors)) return;
    if (!mesh.listPrimitives().every((primitive) => mergeable(primitive, matrix))) return;
    const feature = parts.length;
    parts.push({ group_id: node.getExtras().group_id as string, name: partName(node, mesh, index) });
    nodes.push(node);
    for (const primitive of mesh.listPrimitives()) {
      const semantics = layoutOf(primitive);
      const key = `${materialId(primitive.getMaterial())}|${semantics.join(',')}`;
      let batch = batches.get(key);
      if (!batch) batches.set(key, (batch = { material: primitive.getMaterial(), semantics, pieces: [] }));
      batch.pieces.push({ primitive, matrix, feature });
    }
  });
  if (parts.length <= settings.aboveParts) return null;
  return { batches: [...batches.values()], parts, nodes, instances: [...instances.values()] };
}

/**
 * Where a planned document's properties are in the document a batch is written to: themselves when batching in
 * place, their copies when writing into a copy.
 */
export type BatchTarget = <T extends Property>(property: T) => T;

/**
 * Writes a planned batch into `document`: one primitive per batch on one node at the root of the default scene,
 * each part's vertices baked into world space and carrying its feature id (`_FEATURE_ID_0`, `EXT_mesh_features`),
 * and one node per instanced mesh drawing its parts as instances (`EXT_mesh_gpu_instancing`, their feature ids by
 * `EXT_instance_features`); every feature id resolves by the document's table of parts (`EXT_structural_metadata`,
 * `group_id` and `name`, as tiles carry them). The batched and instanced part nodes lose their meshes: each is
 * removed (listed on its parent, {@link BATCHED_CHILDREN}, where it sat under an object of its own), or kept marked
 * {@link DRAWN_BY_FEATURES} where it holds other nodes or a camera. The meshes only batched parts drew are left to
 * the caller.
 */
export function writeBatch(
  document: Document,
  plan: BatchPlan,
  target: BatchTarget,
  source: Document,
  context: StepContext,
): void {
  const root = document.getRoot();
  const sourceRoot = source.getRoot();
  const scene = target(sourceRoot.getDefaultScene() ?? sourceRoot.listScenes()[0]!);
  const buffer = root.listBuffers()[0] ?? document.createBuffer();
  const mesh = document.createMesh('Batched parts');
  const primitives = plan.batches.map((batch) => {
    const material = batch.material ? target(batch.material) : null;
    const primitive = mergeBatch(document, batch, material, plan.parts.length);
    for (const accessor of [primitive.getIndices()!, ...primitive.listAttributes()])
      accessor.setBuffer(buffer);
    mesh.addPrimitive(primitive);
    return primitive;
  });
  const table = addPartFeatures(document, primitives, plan.parts);
  if (primitives.length > 0) scene.addChild(document.createNode('Batched parts').setMesh(mesh));
  else mesh.dispose();
  writeInstances(document, plan.instances, { scene, buffer, table, featureCount: plan.parts.length }, target);
  // Judged in the planned document, before any goes: a node whose children all go still holds them there.
  const retired = [...plan.nodes, ...plan.instances.flatMap((group) => group.nodes)].map((node) => ({
    node,
    goes: goesOnceBatched(node),
  }));
  recordRemovedParts(
    retired.filter(({ goes }) => goes).map(({ node }) => node),
    target,
  );
  for (const { node, goes } of retired) retireBatchedNode(target(node), goes);
  const instanced = plan.instances.reduce((sum, group) => sum + group.placements.length, 0);
  context.logger.debug(
    `${NAME}: ${plan.parts.length - instanced} parts in ${primitives.length} primitives, ` +
      `${instanced} as instances of ${plan.instances.length} meshes`,
  );
}

/**
 * Merges the parts of a document of many parts into a few primitives in place ({@link planBatch},
 * {@link writeBatch}), and disposes the meshes and accessors nothing draws any more.
 * Returns how many parts were batched (0: the document is left as it was).
 */
export function batchParts(
  document: Document,
  options: Partial<BatchPartsOptions>,
  context: StepContext,
): number {
  const plan = planBatch(document, options);
  if (!plan) return 0;
  const meshes = new Set(plan.nodes.map((node) => node.getMesh()!));
  writeBatch(document, plan, (property) => property, document, context);
  disposeUndrawnMeshes(document, meshes);
  return plan.parts.length;
}

/** Nodes an animation moves, whose world matrices are not fixed. */
function animatedNodes(document: Document): Set<Node> {
  const nodes = new Set<Node>();
  for (const animation of document.getRoot().listAnimations()) {
    for (const channel of animation.listChannels()) {
      const node = channel.getTargetNode();
      if (node) nodes.add(node);
    }
  }
  return nodes;
}

/** Whether a primitive can be merged: float triangles without morph targets or extensions. */
function mergeable(primitive: Primitive, matrix: mat4): boolean {
  if (primitive.getMode() !== TRIANGLES || primitive.listTargets().length > 0) return false;
  if (primitive.listExtensions().length > 0) return false;
  const position = primitive.getAttribute('POSITION');
  if (!(position?.getArray() instanceof Float32Array)) return false;
  if (primitive.listSemantics().some((semantic) => semantic.startsWith('_FEATURE_ID_'))) return false;
  const normal = primitive.getAttribute('NORMAL');
  if (normal && !(normal.getArray() instanceof Float32Array)) return false;
  // A tangent's handedness under a moved frame is not worth baking for the few models that have both.
  return !primitive.getAttribute('TANGENT') || isIdentity(matrix);
}

/** A primitive's vertex layout: each attribute's semantic, type, component type and normalization. */
function layoutOf(primitive: Primitive): string[] {
  return primitive
    .listSemantics()
    .map((semantic) => {
      const accessor = primitive.getAttribute(semantic)!;
      return `${semantic}:${accessor.getType()}:${accessor.getComponentType()}:${accessor.getNormalized()}`;
    })
    .sort();
}

/** One primitive drawing every piece of a batch, its vertices in world space and tagged with their feature. */
function mergeBatch(
  document: Document,
  batch: Batch,
  material: Material | null,
  featureCount: number,
): Primitive {
  const counts = batch.pieces.map(({ primitive }) => primitive.getAttribute('POSITION')!.getCount());
  const vertexCount = counts.reduce((sum, count) => sum + count, 0);
  const indexCounts = batch.pieces.map(
    ({ primitive }, at) => primitive.getIndices()?.getCount() ?? counts[at]! - (counts[at]! % 3),
  );
  const indices =
    vertexCount <= 0xffff
      ? new Uint16Array(indexCounts.reduce((sum, count) => sum + count, 0))
      : new Uint32Array(indexCounts.reduce((sum, count) => sum + count, 0));
  const FeatureArray =
    featureCount <= 0x100 ? Uint8Array : featureCount <= 0x10000 ? Uint16Array : Float32Array;
  const features = new FeatureArray(vertexCount);
  const primitive = document.createPrimitive().setMaterial(material);
  for (const layout of batch.semantics) {
    const semantic = layout.slice(0, layout.indexOf(':'));
    const template = batch.pieces[0]!.primitive.getAttribute(semantic)!;
    const size = template.getElementSize();
    const ArrayType = template.getArray()!.constructor as new (length: number) => TypedArray;
    const values = new ArrayType(vertexCount * size);
    let at = 0;
    batch.pieces.forEach(({ primitive: piece, matrix }) => {
      const source = piece.getAttribute(semantic)!.getArray()!;
      values.set(bakedValues(semantic, source, matrix), at * size);
      at += piece.getAttribute('POSITION')!.getCount();
    });
    primitive.setAttribute(semantic, copyAccessor(document, template, values));
  }
  let vertexAt = 0;
  let indexAt = 0;
  batch.pieces.forEach(({ primitive: piece, matrix, feature }, pieceIndex) => {
    features.fill(feature, vertexAt, vertexAt + counts[pieceIndex]!);
    const own = piece.getIndices()?.getArray();
    const length = indexCounts[pieceIndex]!;
    // A mirroring matrix turns the winding around; swapping two corners keeps the front face in front.
    const flip = determinant3(matrix) < 0;
    for (let corner = 0; corner < length; corner++) {
      const source = flip && corner % 3 !== 0 ? corner + (corner % 3 === 1 ? 1 : -1) : corner;
      indices[indexAt + corner] = vertexAt + (own ? own[source]! : source);
    }
    vertexAt += counts[pieceIndex]!;
    indexAt += length;
  });
  return primitive
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices))
    .setAttribute('_FEATURE_ID_0', document.createAccessor().setType('SCALAR').setArray(features));
}

/** An attribute's values as the batch holds them: positions and normals through the piece's world matrix. */
function bakedValues(semantic: string, source: TypedArray, matrix: mat4): ArrayLike<number> {
  if (isIdentity(matrix)) return source;
  if (semantic === 'POSITION') return transformPositions(source as Float32Array, matrix);
  if (semantic !== 'NORMAL') return source;
  const normals = bakeNormals(source as Float32Array, matrix);
  // The cofactor matrix bakeNormals uses points normals inward under a mirroring matrix.
  if (determinant3(matrix) < 0) for (let i = 0; i < normals.length; i++) normals[i] = -normals[i]!;
  return normals;
}

/** A new accessor like `template` (type, normalization) over `values`. */
function copyAccessor(document: Document, template: Accessor, values: TypedArray): Accessor {
  return document
    .createAccessor()
    .setType(template.getType())
    .setNormalized(template.getNormalized())
    .setArray(values);
}

/** Disposes those of `meshes` no node draws any more, with their primitives and the accessors only they used. */
function disposeUndrawnMeshes(document: Document, meshes: Set<Mesh>): void {
  const accessors = new Set<Accessor>();
  for (const mesh of meshes) {
    if (mesh.listParents().some((parent) => parent.propertyType === PropertyType.NODE)) continue;
    for (const primitive of mesh.listPrimitives()) {
      const indices = primitive.getIndices();
      if (indices) accessors.add(indices);
      for (const attribute of primitive.listAttributes()) accessors.add(attribute);
      primitive.dispose();
    }
    mesh.dispose();
  }
  const root = document.getRoot();
  for (const accessor of accessors) {
    if (accessor.listParents().every((parent) => parent === root)) accessor.dispose();
  }
}
