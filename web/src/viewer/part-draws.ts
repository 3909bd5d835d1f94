/**
 * Draws a model's plain parts a few calls apiece instead of one call per part: the parts of a batched level merged
 * ({@link PartBatches}), the parts sharing a mesh instanced ({@link PartInstances}). A part is in one or the other,
 * never both: split parts have a primitive of their own, and only meshes left whole share a geometry.
 */
import { Group } from 'three';
import type { Mesh, Object3D } from 'three';
import { PartBatches } from './part-batches.ts';
import { PartInstances } from './part-instances.ts';

/** The merged and instanced draws of a view: add {@link PartDraws.group} to its scene and draw through {@link PartDraws.render}. */
export class PartDraws {
  /** Holds the merged and the instanced meshes. */
  readonly group = new Group();
  readonly merged = new PartBatches();
  readonly instanced = new PartInstances();

  constructor() {
    this.group.name = 'Part draws';
    this.group.add(this.merged.group, this.instanced.group);
  }

  /** Draws one frame with `draw` (a render of `scene`), the plain parts of `parts` merged or instanced for it only. */
  render(parts: Map<string, Mesh[]>, scene: Object3D, draw: () => void): void {
    this.merged.render(parts, scene, () => this.instanced.render(parts, scene, draw));
  }

  /** Frees the merged and instanced meshes (not the parts', which are the model's). */
  dispose(): void {
    this.merged.dispose();
    this.instanced.dispose();
  }
}
