import { MathUtils } from '@gltf-transform/core';
import type { Document, Mesh, Node, mat4 } from '@gltf-transform/core';
import { invertAffine } from '../../gltf/invert-affine.ts';
import { placementOf } from '../../gltf/node-placement.ts';
import type { Placement } from '../../gltf/node-placement.ts';
import { multiply } from '../../gltf/multiply-matrices.ts';
import { BATCHED_CHILDREN, DRAWN_BY_FEATURES } from '../../pipeline/lods/retired-part-nodes.ts';
import type { RemovedPart } from '../../pipeline/lods/retired-part-nodes.ts';

const IDENTITY: mat4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** How far from the identity's a placement's numbers may be and still move nothing. */
const IDENTITY_TOLERANCE = 1e-6;

/** A part split out of a batched level: its name, `group_id`, mesh, and its placement in the holder's frame. */
export interface SplitPart {
  name: string;
  groupId: string;
  mesh: Mesh;
  /**
   * Placement in the frame of the node that drew it (an instance's; what it leaves out is the identity's); null where
   * the vertices are already in it.
   */
  local: Partial<Placement> | null;
}

/**
 * Where a batched level says a part sat in its tree: on a node it kept marked `drawn_by_features`, or listed on its
 * parent's `batched_children` (batch-parts.ts).
 */
export type PartHome = { node: Node } | { parent: Node; listed: RemovedPart };

/** Where the parts of a batched level sat in its node tree (an IFC element in its storey), by `group_id`. */
export function partHomes(document: Document): Map<string, PartHome> {
  const homes = new Map<string, PartHome>();
  for (const node of document.getRoot().listNodes()) {
    const { group_id: groupId, [DRAWN_BY_FEATURES]: drawn, [BATCHED_CHILDREN]: listed } = node.getExtras();
    if (drawn === true && typeof groupId === 'string' && !homes.has(groupId)) homes.set(groupId, { node });
    if (!Array.isArray(listed)) continue;
    for (const entry of listed as RemovedPart[]) {
      const id: unknown = entry?.extras?.group_id;
      if (typeof id === 'string' && !homes.has(id)) homes.set(id, { parent: node, listed: entry });
    }
  }
  return homes;
}

/** Drops every `batched_children` list once its parts have nodes again. */
export function dropPartLists(document: Document): void {
  for (const node of document.getRoot().listNodes()) {
    const { [BATCHED_CHILDREN]: listed, ...extras } = node.getExtras();
    if (listed !== undefined) node.setExtras(extras);
  }
}

/**
 * Gives a part split out of a batched level its node where the level says it sat ({@link partHomes}), so an IFC
 * element is found in its storey again and no `group_id` is written twice: a node made again under the parent that
 * listed it, or the node kept for it (the mesh on that node when it places nothing else or the part is already in
 * its frame, else on a child of it). Where the level says nothing, or the placement cannot be written as a node's
 * (sheared by the parents), a new node under `holder`, the node that drew it. The part stays where it was drawn in
 * world space.
 */
export function placeSplitPart(
  document: Document,
  homes: Map<string, PartHome>,
  holder: Node,
  part: SplitPart,
): Node {
  const home = homes.get(part.groupId);
  const world = () =>
    part.local ? multiply(holder.getWorldMatrix(), matrixOf(part.local)) : holder.getWorldMatrix();
  if (home && 'listed' in home) {
    const placement = placementIn(home.parent.getWorldMatrix(), world());
    if (placement) {
      homes.delete(part.groupId);
      const node = document.createNode(home.listed.name || part.name).setExtras({ ...home.listed.extras });
      home.parent.addChild(node);
      return setPlacement(node.setMesh(part.mesh), placement);
    }
  } else if (home) {
    const kept = home.node;
    const alone = kept.listChildren().length === 0 && !kept.getMesh();
    const frame = alone ? (kept.getParentNode()?.getWorldMatrix() ?? IDENTITY) : kept.getWorldMatrix();
    const placement = placementIn(frame, world());
    if (placement) {
      homes.delete(part.groupId);
      const { [DRAWN_BY_FEATURES]: _drawn, ...extras } = kept.getExtras();
      kept.setExtras(extras);
      if (alone) return setPlacement(kept.setMesh(part.mesh), placement);
      // A node that places others keeps its placement: the part is drawn by it where it is already in its frame.
      if (!kept.getMesh() && isIdentity(placement)) return kept.setMesh(part.mesh);
      const child = document.createNode(part.name).setExtras({ group_id: part.groupId });
      kept.addChild(child);
      return setPlacement(child.setMesh(part.mesh), placement);
    }
  }
  const node = document.createNode(part.name).setMesh(part.mesh).setExtras({ group_id: part.groupId });
  holder.addChild(node);
  return part.local ? setPlacement(node, part.local) : node;
}

/** `world` as a placement in the frame `frame` places in; null where no node's placement can hold it. */
function placementIn(frame: mat4, world: mat4): Placement | null {
  const inverse = invertAffine(frame);
  return inverse && placementOf(multiply(inverse, world));
}

/** Disposes `holder` when splitting its parts out left it drawing and holding nothing. */
export function disposeIfEmptied(holder: Node): void {
  if (holder.getMesh() || holder.listChildren().length > 0 || holder.getCamera()) return;
  if (holder.listExtensions().length > 0 || typeof holder.getExtras().group_id === 'string') return;
  holder.dispose();
}

/** Whether a placement moves nothing, to within the tolerance. */
function isIdentity({ translation, rotation, scale }: Placement): boolean {
  const near = (values: readonly number[], to: readonly number[]) =>
    values.every((value, at) => Math.abs(value - to[at]!) <= IDENTITY_TOLERANCE);
  return (
    near(translation, [0, 0, 0]) &&
    near(scale, [1, 1, 1]) &&
    (near(rotation, [0, 0, 0, 1]) || near(rotation, [0, 0, 0, -1]))
  );
}

/** A placement as a column-major matrix. */
function matrixOf(placement: Partial<Placement>): mat4 {
  const { translation = [0, 0, 0], rotation = [0, 0, 0, 1], scale = [1, 1, 1] } = placement;
  return MathUtils.compose(translation, rotation, scale, [...IDENTITY] as mat4);
}

/** Sets those of a node's translation, rotation and scale a placement gives. */
function setPlacement(node: Node, placement: Partial<Placement>): Node {
  if (placement.translation) node.setTranslation(placement.translation);
  if (placement.rotation) node.setRotation(placement.rotation);
  if (placement.scale) node.setScale(placement.scale);
  return node;
}
