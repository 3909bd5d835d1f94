// A frame of the viewer's merged or instanced draws without a renderer: what would be drawn is looked at between
// prepare and restore, as the render would see it.
import type { Mesh, Object3D, Scene } from 'three';
import type { PartGroup, PlainDraws } from '../../web/src/viewer/plain-draws.ts';

/** One frame: prepare, look at what would be drawn, restore. */
export function frame<T>(
  draws: PlainDraws<PartGroup>,
  parts: Map<string, Mesh[]>,
  scene: Scene,
  look: () => T,
): T {
  draws.prepare(parts, scene);
  try {
    return look();
  } finally {
    draws.restore();
  }
}

/** The meshes of its own a draw has drawing now. */
export function drawing<M extends Object3D>(draws: PlainDraws<PartGroup>): M[] {
  return (draws.group.children as M[]).filter((mesh) => mesh.visible);
}
