import { MathUtils } from '@gltf-transform/core';
import type { Document, Mesh, Node, mat4, vec3, vec4 } from '@gltf-transform/core';
import { invertAffine } from '../../gltf/invert-affine.ts';
import { multiply } from '../../gltf/multiply-matrices.ts';
import { DRAWN_BY_FEATURES } from '../../pipeline/lods/batch-parts.ts';

const IDENTITY: mat4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** Largest difference, relative to the scale, between a matrix and its translation, rotation and scale put back. */
const SHEAR_TOLERANCE = 1e-6;

/** A translation, rotation and scale, each left out where it is the identity's. */
export interface Placement {
  translation?: vec3;
  rotation?: vec4;
  scale?: vec3;
}

/** A part split out of a batched level: its name, `group_id`, mesh, and its placement in the holder's frame. */
export interface SplitPart {
  name: string;
  groupId: string;
  mesh: Mesh;
  /** Placement in the frame of the node that drew it (an instance's); null where the vertices are already in it. */
  local: Placement | null;
}

/**
 * The nodes a batched level kept in its tree, marked `drawn_by_features`, for parts it draws batched or as
 * instances (an IFC element in its storey), by `group_id`.
 */
export function keptPartNodes(document: Document): Map<string, Node> {
  const kept = new Map<string, Node>();
  for (const node of document.getRoot().listNodes()) {
    const { group_id: groupId, [DRAWN_BY_FEATURES]: drawn } = node.getExtras();
    if (drawn === true && typeof groupId === 'string' && !kept.has(groupId)) kept.set(groupId, node);
  }
  return kept;
}

/**
 * Gives a part split out of a batched level its node: the node the level kept for it, so an IFC element is found in
 * its storey again and no `group_id` is written twice (the mesh on that node when it places nothing else or the part
 * is already in its frame, else on a child of it), or a new node under `holder`, the node that drew it, where none
 * was kept or the placement cannot be written as a node's (sheared by the kept node's parents). The part stays where
 * it was drawn in world space.
 */
export function placeSplitPart(
  document: Document,
  kept: Map<string, Node>,
  holder: Node,
  part: SplitPart,
): Node {
  const home = kept.get(part.groupId);
  if (home) {
    const alone = home.listChildren().length === 0 && !home.getMesh();
    const frame = alone ? (home.getParentNode()?.getWorldMatrix() ?? IDENTITY) : home.getWorldMatrix();
    const inverse = invertAffine(frame);
    const world = part.local
      ? multiply(holder.getWorldMatrix(), matrixOf(part.local))
      : holder.getWorldMatrix();
    const placement = inverse && placementOf(multiply(inverse, world));
    if (placement) {
      kept.delete(part.groupId);
      const { [DRAWN_BY_FEATURES]: _drawn, ...extras } = home.getExtras();
      home.setExtras(extras);
      if (alone) return setPlacement(home.setMesh(part.mesh), placement);
      // A node that places others keeps its placement: the part is drawn by it where it is already in its frame.
      if (!home.getMesh() && isIdentity(placement)) return home.setMesh(part.mesh);
      const child = document.createNode(part.name).setExtras({ group_id: part.groupId });
      home.addChild(child);
      return setPlacement(child.setMesh(part.mesh), placement);
    }
  }
  const node = document.createNode(part.name).setMesh(part.mesh).setExtras({ group_id: part.groupId });
  holder.addChild(node);
  return part.local ? setPlacement(node, part.local) : node;
}

/** Disposes `holder` when splitting its parts out left it drawing and holding nothing. */
export function disposeIfEmptied(holder: Node): void {
  if (holder.getMesh() || holder.listChildren().length > 0 || holder.getCamera()) return;
  if (holder.listExtensions().length > 0 || typeof holder.getExtras().group_id === 'string') return;
  holder.dispose();
}

/** A matrix as translation, rotation and scale; null when those cannot hold it (it shears). */
function placementOf(matrix: mat4): Required<Placement> | null {
  const translation: vec3 = [0, 0, 0];
  const rotation: vec4 = [0, 0, 0, 1];
  const scale: vec3 = [1, 1, 1];
  MathUtils.decompose(matrix, translation, rotation, scale);
  const again = MathUtils.compose(translation, rotation, scale, [...IDENTITY] as mat4);
  const size = Math.max(1e-30, ...scale.map(Math.abs));
  for (let at = 0; at < 16; at++) {
    if (!(Math.abs(again[at]! - matrix[at]!) <= SHEAR_TOLERANCE * Math.max(size, Math.abs(matrix[at]!))))
      return null;
  }
  return { translation, rotation, scale };
}

/** Whether a placement moves nothing, to within the tolerance. */
function isIdentity({ translation, rotation, scale }: Required<Placement>): boolean {
  const near = (values: readonly number[], to: readonly number[]) =>
    values.every((value, at) => Math.abs(value - to[at]!) <= SHEAR_TOLERANCE);
  return (
    near(translation, [0, 0, 0]) &&
    near(scale, [1, 1, 1]) &&
    (near(rotation, [0, 0, 0, 1]) || near(rotation, [0, 0, 0, -1]))
  );
}

/** A placement as a column-major matrix. */
function matrixOf(placement: Placement): mat4 {
  const { translation = [0, 0, 0], rotation = [0, 0, 0, 1], scale = [1, 1, 1] } = placement;
  return MathUtils.compose(translation, rotation, scale, [...IDENTITY] as mat4);
}

/** Sets those of a node's translation, rotation and scale a placement gives. */
function setPlacement(node: Node, placement: Placement): Node {
  if (placement.translation) node.setTranslation(placement.translation);
  if (placement.rotation) node.setRotation(placement.rotation);
  if (placement.scale) node.setScale(placement.scale);
  return node;
}
