/**
 * The exploded view: each part moved away from the model's centre along the assembly's hierarchy (the arithmetic
 * is {@link explodeSteps}'s). The meshes' places before the first move are kept, so any factor is reached from
 * them and 0 puts every part back exactly.
 */
import { Box3, Vector3 } from 'three';
import type { Mesh } from 'three';
import { explodeOffset, explodeSteps, stageFactors, type ExplodeSteps } from './explode-hierarchy.ts';

/** How far, at most, a part travels: this many times its distance from the model's centre. */
export const MAX_EXPLODE = 1.5;

/** Parts moved apart, and the way back. */
export class ExplodedView {
  private factor = 0;
  /** Each moved mesh's own position before any move, and the group id of its part. */
  private home = new Map<Mesh, { position: Vector3; groupId: string }>();
  /** Each part's box in the world, assembled: the union of its meshes' boxes as they came. */
  private readonly boxes = new Map<string, Box3>();
  /** The parts' steps, made again whenever a part's box grew or the model's centre moved. */
  private steps: ExplodeSteps | null = null;
  private stepsCentre = new Vector3();

  /** `paths` gives each part's path in the assembly by group id; a part missing from it sits at the top. */
  constructor(private readonly paths: ReadonlyMap<string, string> = new Map()) {}

  /** The current factor (0: assembled). */
  get amount(): number {
    return this.factor;
  }

  /** Moves the parts of `parts` to `factor` (0 … {@link MAX_EXPLODE}) of the way out from `centre`. */
  set(parts: ReadonlyMap<string, Mesh[]>, centre: Vector3, factor: number): void {
    this.factor = Math.min(Math.max(factor, 0), MAX_EXPLODE);
    this.update(parts, centre);
  }

  /** Brings the meshes of `parts` (new ones after a level or tiles changed) to the current factor. */
  update(parts: ReadonlyMap<string, Mesh[]>, centre: Vector3): void {
    const home = new Map<Mesh, { position: Vector3; groupId: string }>();
    for (const [groupId, meshes] of parts) {
      const fresh: Mesh[] = [];
      for (const mesh of meshes) {
        const known = this.home.get(mesh);
        if (known) home.set(mesh, known);
        else fresh.push(mesh);
      }
      if (fresh.length > 0) this.remember(groupId, fresh, home);
    }
    // Meshes of tiles or levels gone are forgotten with the map they were in.
    this.home = home;
    if (!this.steps || !this.stepsCentre.equals(centre)) {
      this.steps = explodeSteps(this.partBoxes(), centre);
      this.stepsCentre.copy(centre);
    }
    const factors = stageFactors(this.factor, this.steps.stages, MAX_EXPLODE);
    const offsets = new Map<string, Vector3>();
    for (const [mesh, { position, groupId }] of home) {
      let offset = offsets.get(groupId);
      if (!offset) {
        const steps = this.steps.steps.get(groupId);
        offset = steps ? explodeOffset(steps, factors) : new Vector3();
        offsets.set(groupId, offset);
      }
      this.place(mesh, position, offset);
    }
    if (this.factor === 0) {
      this.home.clear();
      this.boxes.clear();
      this.steps = null;
    }
  }

  /** Notes where meshes not yet moved are (assembled), and grows their part's box by them. */
  private remember(
    groupId: string,
    meshes: Mesh[],
    home: Map<Mesh, { position: Vector3; groupId: string }>,
  ): void {
    let box = this.boxes.get(groupId);
    if (!box) this.boxes.set(groupId, (box = new Box3()));
    const before = box.clone();
    for (const mesh of meshes) {
      box.expandByObject(mesh);
      home.set(mesh, { position: mesh.position.clone(), groupId });
    }
    if (!box.equals(before)) this.steps = null;
  }

  /** The parts' paths and boxes, as {@link explodeSteps} takes them. */
  private partBoxes(): Map<string, { path: string; box: Box3 }> {
    const parts = new Map<string, { path: string; box: Box3 }>();
    for (const [groupId, box] of this.boxes) parts.set(groupId, { path: this.paths.get(groupId) ?? '', box });
    return parts;
  }

  /** Puts `mesh` at its home moved by `worldOffset`, given in the world's frame. */
  private place(mesh: Mesh, home: Vector3, worldOffset: Vector3): void {
    mesh.position.copy(home);
    const parent = mesh.parent;
    if (parent && worldOffset.lengthSq() > 0) {
      parent.updateWorldMatrix(true, false);
      const world = parent.localToWorld(home.clone()).add(worldOffset);
      mesh.position.copy(parent.worldToLocal(world));
    }
    mesh.updateMatrixWorld(true);
  }
}
