/**
 * The exploded view: each part moved away from the model's centre along the line from that centre to the
 * part's own (its bounding box's) centre, by `factor` times that distance. The meshes' places before the first
 * move are kept, so any factor is reached from them and 0 puts every part back exactly.
 */
import { Box3, Vector3 } from 'three';
import type { Mesh } from 'three';

/** How far, at most, a part travels: this many times its distance from the model's centre. */
export const MAX_EXPLODE = 1.5;

/** Parts moved apart, and the way back. */
export class ExplodedView {
  private factor = 0;
  /** Each moved mesh's own position before any move, and its part's centre in the world then. */
  private readonly home = new Map<Mesh, { position: Vector3; offsetFromCentre: Vector3 }>();

  /** The current factor (0: assembled). */
  get amount(): number {
    return this.factor;
  }

  /** Moves the parts of `parts` to `factor` (0 … {@link MAX_EXPLODE}) of their distance from `centre`. */
  set(parts: ReadonlyMap<string, Mesh[]>, centre: Vector3, factor: number): void {
    this.factor = Math.min(Math.max(factor, 0), MAX_EXPLODE);
    this.update(parts, centre);
  }

  /** Brings the meshes of `parts` (new ones after a level or tiles changed) to the current factor. */
  update(parts: ReadonlyMap<string, Mesh[]>, centre: Vector3): void {
    for (const meshes of parts.values()) {
      if (meshes.length === 0) continue;
      const fresh = meshes.filter((mesh) => !this.home.has(mesh));
      if (fresh.length > 0) this.remember(fresh, centre);
      for (const mesh of meshes) {
        const home = this.home.get(mesh);
        if (!home) continue;
        this.place(mesh, home.position, home.offsetFromCentre.clone().multiplyScalar(this.factor));
      }
    }
    if (this.factor === 0) this.home.clear();
  }

  /** Notes where meshes not yet moved are (assembled), and their part's centre's offset from the model's. */
  private remember(meshes: Mesh[], centre: Vector3): void {
    const box = new Box3();
    for (const mesh of meshes) box.expandByObject(mesh);
    const offsetFromCentre = box.isEmpty() ? new Vector3() : box.getCenter(new Vector3()).sub(centre);
    for (const mesh of meshes) this.home.set(mesh, { position: mesh.position.clone(), offsetFromCentre });
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
