// A BCF component may name an object that is no part: an IfcSpace, or an aggregate such as an IfcCurtainWall whose
// plates and members are the parts. The parts table keeps only mesh nodes, but the model's LOD 0 file keeps the
// node tree the importer built from IFC decomposition and containment, each node with its GlobalId as
// `extras.group_id` and its class as `extras.ifc_type`: that tree says which parts an object stands for.

/** An object of the model's node tree: its IFC class when known, and the parts under it (itself when a part). */
export interface HierarchyObject {
  type?: string;
  parts: string[];
}

/** Objects of a model by group id (GlobalId for IFC); only those with at least one part under them. */
export type PartHierarchy = ReadonlyMap<string, HierarchyObject>;

/** IFC classes that contain rather than make up what is under them: hiding one does not hide its contents. */
export const SPATIAL_TYPES = new Set([
  'IfcSite',
  'IfcBuilding',
  'IfcBuildingStorey',
  'IfcSpace',
  'IfcProject',
]);

/** A part node a batched level removed from under an object, listed on its parent (batch-parts.ts). */
interface BatchedChild {
  extras?: { group_id?: unknown; ifc_type?: unknown };
}

interface GltfNode {
  children?: number[];
  mesh?: number;
  extras?: {
    group_id?: unknown;
    ifc_type?: unknown;
    drawn_by_features?: unknown;
    batched_children?: unknown;
  };
}

const GLB_MAGIC = 0x46546c67;
const JSON_CHUNK = 0x4e4f534a;

/** The JSON chunk of a GLB, parsed; undefined when the bytes are not a GLB (the tree is then simply unknown). */
function glbJson(glb: Uint8Array): { nodes?: GltfNode[] } | undefined {
  if (glb.byteLength < 20) return undefined;
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  if (view.getUint32(0, true) !== GLB_MAGIC || view.getUint32(16, true) !== JSON_CHUNK) return undefined;
  const length = view.getUint32(12, true);
  if (20 + length > glb.byteLength) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as { nodes?: GltfNode[] };
  } catch {
    return undefined;
  }
}

/**
 * The objects of a model's node tree with the parts under each, read from its LOD 0 GLB (only the JSON chunk).
 * `isPart` says which group ids are parts of the model. Linear in the nodes: each node's parts are gathered once,
 * children before parents.
 */
export function readPartHierarchy(glb: Uint8Array, isPart: (groupId: string) => boolean): PartHierarchy {
  const nodes = glbJson(glb)?.nodes ?? [];
  const idOf = (node: GltfNode | undefined) =>
    typeof node?.extras?.group_id === 'string' ? node.extras.group_id : undefined;
  const partsUnder: (string[] | undefined)[] = new Array(nodes.length);
  // Post-order without recursion: a tree may be deep, and a malformed one may even loop (a node seen twice is
  // counted once).
  const state = new Uint8Array(nodes.length);
  for (let root = 0; root < nodes.length; root++) {
    if (state[root]) continue;
    const stack = [root];
    while (stack.length > 0) {
      const index = stack[stack.length - 1]!;
      const node = nodes[index]!;
      if (state[index] === 0) {
        state[index] = 1;
        for (const childIndex of node.children ?? []) {
          if (Number.isInteger(childIndex) && state[childIndex] === 0 && nodes[childIndex])
            stack.push(childIndex);
        }
        continue;
      }
      stack.pop();
      if (state[index] === 2) continue;
      state[index] = 2;
      const own = idOf(node);
      // A level of many parts draws them batched, keeping a part's node in the tree marked instead of its mesh.
      const drawn = node.mesh !== undefined || node.extras?.drawn_by_features === true;
      const parts = own !== undefined && drawn && isPart(own) ? [own] : [];
      for (const child of batchedChildren(node)) {
        const id = child.extras?.group_id;
        if (typeof id === 'string' && isPart(id)) parts.push(id);
      }
      // A loop, not a spread: a storey may hold more parts than a call takes arguments.
      for (const childIndex of node.children ?? [])
        for (const part of partsUnder[childIndex] ?? []) parts.push(part);
      partsUnder[index] = parts;
    }
  }
  const objects = new Map<string, HierarchyObject>();
  // A part listed on its parent stands for itself, as a part node does.
  for (const node of nodes) {
    for (const child of batchedChildren(node)) {
      const id = child.extras?.group_id;
      if (typeof id !== 'string' || !isPart(id) || objects.has(id)) continue;
      const type = typeof child.extras?.ifc_type === 'string' ? child.extras.ifc_type : undefined;
      objects.set(id, { type, parts: [id] });
    }
  }
  nodes.forEach((node, index) => {
    const id = idOf(node);
    const parts = partsUnder[index] ?? [];
    if (id === undefined || parts.length === 0 || objects.has(id)) return;
    const type = typeof node.extras?.ifc_type === 'string' ? node.extras.ifc_type : undefined;
    objects.set(id, { type, parts: [...new Set(parts)] });
  });
  return objects;
}

/** The part nodes a batched level listed on `node` in place of nodes of their own; none when it lists none. */
function batchedChildren(node: GltfNode): BatchedChild[] {
  const list = node.extras?.batched_children;
  return Array.isArray(list)
    ? (list as BatchedChild[]).filter((child) => typeof child === 'object' && child)
    : [];
}
