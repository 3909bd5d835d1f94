// What becomes of a part node once a batch draws its mesh: removed, listed on its parent, or kept marked.
import { PropertyType } from '@gltf-transform/core';
import type { Node, Property } from '@gltf-transform/core';

/**
 * The extras mark of a part node kept, without its mesh, where it holds other nodes or a camera: its triangles are
 * drawn by the batched mesh, under its `group_id` as a feature. (Levels written before {@link BATCHED_CHILDREN} kept
 * an IFC storey's elements so too.)
 */
export const DRAWN_BY_FEATURES = 'drawn_by_features';

/**
 * The extras list on a node of the part nodes a batch removed from under it, where they sat under an object of
 * their own (an IFC storey's elements): each one's name and extras (`group_id`, `ifc_type`), so the node tree still
 * says which parts each object stands for, and an export puts each part back where it was. The conversion then has
 * no node per part to copy for each level: at 100,000 IFC elements LOD 0 and 1 took 10.3 s to write with them.
 */
export const BATCHED_CHILDREN = 'batched_children';

/** A part node a batch removed from under an object, as {@link BATCHED_CHILDREN} lists it. */
export interface RemovedPart {
  name: string;
  extras: Record<string, unknown>;
}

/** Where a planned document's node is in the document the batch is written to (batch-parts.ts, BatchTarget). */
type Target = <T extends Property>(property: T) => T;

/**
 * Takes the mesh off a batched part node. A node that holds a camera or other nodes stays where it was, marked
 * {@link DRAWN_BY_FEATURES}, so the node tree still says which parts each object stands for; any other is removed
 * (one under an object listed on its parent first: {@link recordRemovedParts}).
 */
export function retireBatchedNode(node: Node, goes: boolean): void {
  // `goes` is judged in the planned document: in a copy, a node whose children were left out holds none.
  node.setMesh(null);
  if (goes) node.dispose();
  else {
    node.setExtras({ ...node.getExtras(), [DRAWN_BY_FEATURES]: true });
    // Its placement is in the batch's vertices or its instance now: one that places nothing else is left out.
    if (node.listChildren().length === 0 && !node.getCamera())
      node.setTranslation([0, 0, 0]).setRotation([0, 0, 0, 1]).setScale([1, 1, 1]);
  }
}

/**
 * Whether a batched part node is removed once its mesh is batched, not kept marked {@link DRAWN_BY_FEATURES}: it
 * holds no camera and no other nodes, and only the node tree refers to it (a skin's joint or an animation's target
 * would lose its node).
 */
export function goesOnceBatched(node: Node): boolean {
  return node.listChildren().length === 0 && !node.getCamera() && onlyInTheTree(node);
}

/**
 * Lists each of `nodes` (part nodes a batch removes) that sits under an object of its own on its parent's
 * {@link BATCHED_CHILDREN}, in their order; `target` gives the parent in the document written to.
 */
export function recordRemovedParts(nodes: Iterable<Node>, target: Target): void {
  const byParent = new Map<Node, RemovedPart[]>();
  for (const node of nodes) {
    const parent = node.getParentNode();
    if (!parent || !underAnObject(node)) continue;
    let list = byParent.get(parent);
    if (!list) byParent.set(parent, (list = []));
    list.push({ name: node.getName(), extras: { ...node.getExtras() } });
  }
  for (const [parent, list] of byParent) {
    const home = target(parent);
    const extras = home.getExtras();
    const before = Array.isArray(extras[BATCHED_CHILDREN]) ? (extras[BATCHED_CHILDREN] as RemovedPart[]) : [];
    home.setExtras({ ...extras, [BATCHED_CHILDREN]: [...before, ...list] });
  }
}

/** Whether only the node tree refers to a node (a scene or its parent), not a skin or an animation. */
function onlyInTheTree(node: Node): boolean {
  return node.listParents().every((parent) => {
    const type = parent.propertyType;
    return type === PropertyType.ROOT || type === PropertyType.SCENE || type === PropertyType.NODE;
  });
}

/** Whether one of a node's ancestors carries a `group_id` of its own. */
function underAnObject(node: Node): boolean {
  for (let parent = node.getParentNode(); parent; parent = parent.getParentNode()) {
    if (typeof parent.getExtras().group_id === 'string') return true;
  }
  return false;
}
