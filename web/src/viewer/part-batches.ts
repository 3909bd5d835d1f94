/**
 * Draws the parts of a batched level a few calls per material again. {@link splitByPart} gives every part of a
 * batched primitive its own mesh (sharing the primitive's vertex buffers) so tools can pick, paint, hide and move
 * it, which would cost one draw call per part; before each frame {@link PartBatches.prepare} draws the parts still
 * in their plain state (shown, in their place, with a single material, whichever it is) through one mesh per
 * primitive and material whose index joins theirs, and keeps those parts' own meshes out of that frame only.
 * The part meshes stay what every tool reads and raycasts; the merged meshes are outside the model and never hit.
 */
import { BufferAttribute, BufferGeometry, DynamicDrawUsage, Matrix4, Mesh } from 'three';
import type { Material, Object3D, TypedArray } from 'three';
import { addMember, PlainDraws, type PartGroup } from './plain-draws.ts';
import { isPlain, reachesShown, type LoadedPlace } from './plain-parts.ts';

/**
 * The batched primitive a split part came from: its place (the node it hung under and its placement there, which
 * its parts start with) and the layout of its index.
 */
export interface BatchSource extends LoadedPlace {
  /** Indices in the primitive: no merged index of its parts is longer. */
  indexCount: number;
  /** The typed array its index (and each part's) is made of. */
  IndexArray: new (length: number) => TypedArray;
}

/** The source of each split part; a mesh absent here draws itself. */
const sources = new WeakMap<Mesh, BatchSource>();

/** Records that `part` draws some of `source`'s triangles, so its frames may be drawn merged with its siblings'. */
export function markBatched(part: Mesh, source: BatchSource): void {
  sources.set(part, source);
}

/** The parts of one source drawn with one material, and the mesh whose index joins theirs. */
interface MergedGroup extends PartGroup {
  source: BatchSource;
  material: Material;
  mesh: Mesh<BufferGeometry, Material> | null;
}

/** What is kept per source between frames. */
interface SourceState {
  source: BatchSource;
  groups: MergedGroup[];
  /** The frame in which a part of it was last seen; older sources are gone. */
  seen: number;
  /** Whether its parent and every ancestor are visible and reach the drawn scene this frame. */
  shown: boolean;
}

/** The merged meshes of a view: add {@link PartBatches.group} to its scene and draw each frame through {@link PartBatches.render}. */
export class PartBatches extends PlainDraws<MergedGroup> {
  private readonly states = new Map<BatchSource, SourceState>();
  private readonly show = (group: MergedGroup) => this.showMerged(group);

  constructor() {
    super('Merged parts');
  }

  /**
   * Sorts the parts of `parts` into merged groups and sets the frame up: groups of two or more plain parts draw
   * merged (their index rebuilt only when their members changed) and their part meshes are taken off the camera's
   * layer. `scene` is what the frame draws: a part under a node detached from it is not shown. Call
   * {@link PartBatches.restore} right after the render.
   */
  prepare(parts: Map<string, Mesh[]>, scene: Object3D): void {
    const frame = ++this.frame;
    for (const meshes of parts.values()) {
      for (const mesh of meshes) {
        const source = sources.get(mesh);
        if (!source) continue;
        const state = this.stateOf(source, frame, scene);
        if (!state.shown || !isPlain(mesh, source)) continue;
        addMember(groupOf(state, mesh.material as Material), mesh);
      }
    }
    this.beginSettling();
    for (const state of this.states.values()) {
      if (state.seen !== frame) {
        for (const group of state.groups) dropMesh(group);
        this.states.delete(state.source);
        continue;
      }
      // Compacted in place: a still frame allocates nothing.
      let kept = 0;
      for (const group of state.groups)
        if (this.settle(group, this.show, dropMesh)) state.groups[kept++] = group;
      state.groups.length = kept;
    }
  }

  /** Frees the merged meshes (not the part meshes or the vertex buffers, which are the model's). */
  dispose(): void {
    for (const state of this.states.values()) for (const group of state.groups) dropMesh(group);
    this.states.clear();
    this.beginSettling();
  }

  /** The state of `source` for this frame, created on first sight; its visibility is read once a frame. */
  private stateOf(source: BatchSource, frame: number, scene: Object3D): SourceState {
    let state = this.states.get(source);
    if (!state) {
      state = { source, groups: [], seen: 0, shown: false };
      this.states.set(source, state);
    }
    if (state.seen !== frame) {
      state.seen = frame;
      state.shown = reachesShown(source.parent, scene);
      for (const group of state.groups) group.count = 0;
    }
    return state;
  }

  /** Brings a group's merged mesh up to date: its index joins its members', in their parent's place. */
  private showMerged(group: MergedGroup): Mesh {
    const mesh = group.mesh ?? this.makeMesh(group, group.source);
    if (group.dirty) rebuildIndex(group, mesh.geometry);
    const { parent } = group.source;
    parent.updateWorldMatrix(true, false);
    mesh.matrix.multiplyMatrices(parent.matrixWorld, localMatrix(group.source));
    mesh.matrixWorld.copy(mesh.matrix);
    return mesh;
  }

  /** The merged mesh of a group: the source's vertex buffers, an index as long as the source's, the group's material. */
  private makeMesh(group: MergedGroup, source: BatchSource): Mesh<BufferGeometry, Material> {
    const first = group.members[0]!;
    const geometry = new BufferGeometry();
    for (const [name, attribute] of Object.entries(first.geometry.attributes))
      geometry.setAttribute(name, attribute);
    const index = new BufferAttribute(new source.IndexArray(source.indexCount), 1);
    index.setUsage(DynamicDrawUsage);
    geometry.setIndex(index);
    // Culled as the whole primitive: measured over every vertex of the shared buffers.
    geometry.computeBoundingSphere();
    const mesh = new Mesh(geometry, group.material);
    mesh.name = 'Merged parts';
    mesh.matrixAutoUpdate = false;
    mesh.matrixWorldAutoUpdate = false;
    // Clicks and measurements go to the parts themselves.
    mesh.raycast = () => undefined;
    group.mesh = mesh;
    this.group.add(mesh);
    return mesh;
  }
}

/** The group of `state` drawing with `material` (a source is drawn with a few materials: a scan finds it). */
function groupOf(state: SourceState, material: Material): MergedGroup {
  for (const group of state.groups) if (group.material === material) return group;
  const source = state.source;
  const group: MergedGroup = { source, material, members: [], count: 0, built: 0, dirty: true, mesh: null };
  state.groups.push(group);
  return group;
}

/** Writes the members' triangles one after another into the merged index and draws only that much of it. */
function rebuildIndex(group: MergedGroup, geometry: BufferGeometry): void {
  const index = geometry.index!;
  const target = index.array;
  let length = 0;
  for (let at = 0; at < group.count; at++) {
    const own = group.members[at]!.geometry.index!.array;
    target.set(own, length);
    length += own.length;
  }
  // Stale members past the count would keep their meshes alive.
  group.members.length = group.count;
  index.clearUpdateRanges();
  index.addUpdateRange(0, length);
  index.needsUpdate = true;
  geometry.setDrawRange(0, length);
  group.built = group.count;
  group.dirty = false;
}

/** The placement of a source's primitive under its parent. */
function localMatrix(source: BatchSource): Matrix4 {
  return scratch.compose(source.position, source.quaternion, source.scale);
}
const scratch = new Matrix4();

/**
 * Frees a group's merged mesh: its index only. The vertex buffers are the model's; disposing a geometry that still
 * named them would free them under the parts.
 */
function dropMesh(group: MergedGroup): void {
  const mesh = group.mesh;
  if (!mesh) return;
  mesh.removeFromParent();
  for (const name of Object.keys(mesh.geometry.attributes)) mesh.geometry.deleteAttribute(name);
  mesh.geometry.dispose();
  group.mesh = null;
  group.built = 0;
  group.dirty = true;
}
