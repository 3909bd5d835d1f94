/**
 * What merged and instanced drawing agree on: a part mesh drawn with its siblings in one call is "plain" (shown,
 * under the node it was loaded under, one material, on its own layer only; merged drawing also needs it unmoved),
 * and while drawn so it is kept off the camera's layer for that frame only.
 */
import type { Mesh, Object3D, Quaternion, Vector3 } from 'three';

/** Where a part mesh was loaded: its parent and its placement under it. */
export interface LoadedPlace {
  /** The node it hung under, which it hangs under while unmoved. */
  parent: Object3D;
  position: Vector3;
  quaternion: Quaternion;
  scale: Vector3;
}

/** A part mesh's layers while drawn as itself (three.js's default: layer 0 only). */
export const OWN_LAYERS = 1;

/** A part mesh as it was loaded at `place`, visible, with one material and on its own layer only. */
export function isPlain(mesh: Mesh, place: LoadedPlace): boolean {
  return (
    isPlainUnder(mesh, place.parent) &&
    mesh.position.equals(place.position) &&
    mesh.quaternion.equals(place.quaternion) &&
    mesh.scale.equals(place.scale)
  );
}

/** A part mesh visible under `parent`, with one material and on its own layer only, wherever it was moved to there. */
export function isPlainUnder(mesh: Mesh, parent: Object3D): boolean {
  return (
    mesh.visible && mesh.parent === parent && mesh.layers.mask === OWN_LAYERS && !Array.isArray(mesh.material)
  );
}

/** Whether `node` and its ancestors are all visible and it hangs in `scene`. */
export function reachesShown(node: Object3D, scene: Object3D): boolean {
  let top: Object3D = node;
  for (let at: Object3D | null = node; at; at = at.parent) {
    if (!at.visible) return false;
    top = at;
  }
  return top === scene;
}

/** Keeps the first `count` of `members` out of this frame: a shared draw draws them. */
export function holdOut(members: readonly Mesh[], count: number): void {
  for (let at = 0; at < count; at++) members[at]!.layers.mask = 0;
}

/** Puts the first `count` of `members` back on their own layer, as every tool expects to find them. */
export function putBack(members: readonly Mesh[], count: number): void {
  for (let at = 0; at < count; at++) members[at]!.layers.mask = OWN_LAYERS;
}
