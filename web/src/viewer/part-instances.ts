/**
 * Draws the parts that share a mesh (nodes instancing one of a few meshes: a conversion keeps a mesh drawn by many
 * nodes as one shared mesh) a call per mesh and material, not a call per part. Before each frame
 * {@link PartInstances.prepare} draws the parts still plain (see plain-parts.ts) through one InstancedMesh per
 * geometry and material holding their world matrices (a part moved under its parent, as an exploded view moves it,
 * stays drawn so, where it is now), and keeps those parts' own meshes out of that frame only. The part meshes stay
 * what every tool reads and raycasts; the instanced meshes are outside the model and never hit.
 */
import { DynamicDrawUsage, InstancedMesh, Matrix4 } from 'three';
import type { BufferGeometry, Material, Mesh, Object3D, Quaternion, SkinnedMesh, Vector3 } from 'three';
import { addMember, PlainDraws, type PartGroup } from './plain-draws.ts';
import { isPlainUnder, reachesShown, type LoadedPlace } from './plain-parts.ts';

/** Where a part sharing its mesh was loaded, and the placement under its parent its instance was last drawn at. */
interface Home extends LoadedPlace {
  drawn: { position: Vector3; quaternion: Quaternion; scale: Vector3 };
}

/** The loaded place of each part mesh that may be drawn instanced; a mesh absent here draws itself. */
const homes = new WeakMap<Mesh, Home>();

/**
 * Records where each of `meshes` that shares its geometry with another of them was loaded, so its frames may be
 * drawn instanced with the others'. Skinned and morphed meshes are left to draw themselves: their shapes differ.
 */
export function markShared(meshes: readonly Mesh[]): void {
  const uses = new Map<BufferGeometry, number>();
  for (const mesh of meshes) uses.set(mesh.geometry, (uses.get(mesh.geometry) ?? 0) + 1);
  for (const mesh of meshes) {
    if ((uses.get(mesh.geometry) ?? 0) < 2 || !mesh.parent) continue;
    if ((mesh as SkinnedMesh).isSkinnedMesh || (mesh.morphTargetInfluences?.length ?? 0) > 0) continue;
    const { position, quaternion, scale } = mesh;
    homes.set(mesh, {
      parent: mesh.parent,
      position: position.clone(),
      quaternion: quaternion.clone(),
      scale: scale.clone(),
      drawn: { position: position.clone(), quaternion: quaternion.clone(), scale: scale.clone() },
    });
  }
}

/** The parts drawing one geometry with one material, and the instanced mesh that draws them all. */
interface InstancedGroup extends PartGroup {
  geometry: BufferGeometry;
  material: Material;
  /** The frame in which a member was last added. */
  seen: number;
  mesh: InstancedMesh | null;
}

/** What is kept per parent node of shared-mesh parts between frames. */
interface ParentState {
  seen: number;
  /** Whether it and every ancestor are visible and reach the drawn scene this frame. */
  shown: boolean;
  /** Its world matrix when last read, and whether this frame's differs from the one before. */
  world: Matrix4;
  moved: boolean;
}

/** The instanced meshes of a view: add {@link PartInstances.group} to its scene and draw through {@link PartInstances.render}. */
export class PartInstances extends PlainDraws<InstancedGroup> {
  private readonly groups = new Map<BufferGeometry, InstancedGroup[]>();
  private readonly parents = new Map<Object3D, ParentState>();
  private readonly show = (group: InstancedGroup) => this.showInstanced(group);

  constructor() {
    super('Instanced parts');
  }

  /**
   * Sorts the shared-mesh parts of `parts` by geometry and material and sets the frame up: groups of two or more
   * plain parts draw instanced (their matrices rebuilt only when their members or their parents' world matrices
   * changed) and their part meshes are taken off the camera's layer. `scene` is what the frame draws. Call
   * {@link PartInstances.restore} right after the render.
   */
  prepare(parts: Map<string, Mesh[]>, scene: Object3D): void {
    const frame = ++this.frame;
    for (const meshes of parts.values()) {
      for (const mesh of meshes) {
        const home = homes.get(mesh);
        if (!home) continue;
        const parent = this.parentOf(home.parent, frame, scene);
        // A part moved under its parent (an exploded view) stays instanced, drawn where it is now.
        if (!parent.shown || !isPlainUnder(mesh, home.parent)) continue;
        const moved = parent.moved || !isAt(mesh, home.drawn);
        addMember(this.groupOf(mesh.geometry, mesh.material as Material, frame), mesh, moved);
      }
    }
    this.beginSettling();
    for (const [geometry, list] of this.groups) {
      // Compacted in place: a still frame allocates nothing.
      let kept = 0;
      for (const group of list) {
        if (group.seen !== frame) group.count = 0;
        if (this.settle(group, this.show, dropMesh)) list[kept++] = group;
      }
      list.length = kept;
      if (kept === 0) this.groups.delete(geometry);
    }
    for (const [node, state] of this.parents) if (state.seen !== frame) this.parents.delete(node);
  }

  /** Frees the instanced meshes (not the part meshes, their geometries or materials, which are the model's). */
  dispose(): void {
    for (const list of this.groups.values()) for (const group of list) dropMesh(group);
    this.groups.clear();
    this.parents.clear();
    this.beginSettling();
  }

  /** The state of a parent for this frame: whether it is shown and whether its world matrix moved, read once. */
  private parentOf(node: Object3D, frame: number, scene: Object3D): ParentState {
    let state = this.parents.get(node);
    if (!state) {
      state = { seen: 0, shown: false, world: new Matrix4(), moved: false };
      this.parents.set(node, state);
    }
    if (state.seen !== frame) {
      state.seen = frame;
      state.shown = reachesShown(node, scene);
      if (state.shown) {
        // The render updates world matrices after this; an ancestor moved since the last frame shows here first.
        node.updateWorldMatrix(true, false);
        state.moved = !state.world.equals(node.matrixWorld);
        if (state.moved) state.world.copy(node.matrixWorld);
      }
    }
    return state;
  }

  /** The group drawing `geometry` with `material`, emptied on its first use in the frame. */
  private groupOf(geometry: BufferGeometry, material: Material, frame: number): InstancedGroup {
    let list = this.groups.get(geometry);
    if (!list) this.groups.set(geometry, (list = []));
    // A geometry is drawn with a few materials at most: a scan (no closure, it runs for every part) finds its group.
    let group: InstancedGroup | undefined;
    for (const candidate of list) if (candidate.material === material) group = candidate;
    if (!group) {
      group = { geometry, material, members: [], count: 0, built: 0, dirty: true, seen: 0, mesh: null };
      list.push(group);
    }
    if (group.seen !== frame) {
      group.seen = frame;
      group.count = 0;
    }
    return group;
  }

  /** Brings a group's instanced mesh up to date: room for its members, their world matrices as instances. */
  private showInstanced(group: InstancedGroup): InstancedMesh {
    if (!group.mesh || group.mesh.instanceMatrix.count < group.count) this.makeMesh(group);
    const mesh = group.mesh!;
    if (group.dirty) rebuildMatrices(group, mesh);
    return mesh;
  }

  /** A group's instanced mesh, room for its members now: the parts' own geometry and material, never picked. */
  private makeMesh(group: InstancedGroup): void {
    dropMesh(group);
    const mesh = new InstancedMesh(group.geometry, group.material, group.count);
    // Rebuilt whenever a part is hidden, shown, painted or its parent moves.
    mesh.instanceMatrix.setUsage(DynamicDrawUsage);
    mesh.name = 'Instanced parts';
    // Clicks and measurements go to the parts themselves.
    mesh.raycast = () => undefined;
    group.mesh = mesh;
    group.dirty = true;
    this.group.add(mesh);
  }
}

/** Writes each member's world matrix (its parent's, read this frame, times its placement now) as an instance. */
function rebuildMatrices(group: InstancedGroup, mesh: InstancedMesh): void {
  for (let at = 0; at < group.count; at++) {
    const member = group.members[at]!;
    const home = homes.get(member)!;
    const { drawn } = home;
    drawn.position.copy(member.position);
    drawn.quaternion.copy(member.quaternion);
    drawn.scale.copy(member.scale);
    local.compose(drawn.position, drawn.quaternion, drawn.scale);
    mesh.setMatrixAt(at, scratch.multiplyMatrices(home.parent.matrixWorld, local));
  }
  // Stale members past the count would keep their meshes alive.
  group.members.length = group.count;
  mesh.count = group.count;
  const matrices = mesh.instanceMatrix;
  matrices.clearUpdateRanges();
  matrices.addUpdateRange(0, group.count * 16);
  matrices.needsUpdate = true;
  // Culled as a whole: the sphere must hold every instance, not the one geometry at the origin.
  mesh.computeBoundingSphere();
  group.built = group.count;
  group.dirty = false;
}
const scratch = new Matrix4();
const local = new Matrix4();

/** Whether a part is placed under its parent as its instance was last drawn. */
function isAt(mesh: Mesh, drawn: Home['drawn']): boolean {
  return (
    mesh.position.equals(drawn.position) &&
    mesh.quaternion.equals(drawn.quaternion) &&
    mesh.scale.equals(drawn.scale)
  );
}

/** Frees a group's instanced mesh: its instance buffer only (the geometry and material are the parts'). */
function dropMesh(group: InstancedGroup): void {
  const mesh = group.mesh;
  if (!mesh) return;
  mesh.removeFromParent();
  mesh.dispose();
  group.mesh = null;
  group.built = 0;
  group.dirty = true;
}
