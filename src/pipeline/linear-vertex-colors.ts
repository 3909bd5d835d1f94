import type { Document } from '@gltf-transform/core';
import { srgbToLinear } from '../gltf/color-space.ts';

/**
 * Turns every primitive's `COLOR_0` from display (sRGB) values, as PLY files store them and assimp passes them
 * on, to the linear values glTF defines; alpha stays. Returns the number of accessors converted.
 */
export function linearizeVertexColors(document: Document): number {
  const done = new Set<unknown>();
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const colors = primitive.getAttribute('COLOR_0');
      if (!colors || done.has(colors)) continue;
      done.add(colors);
      const element: number[] = [];
      for (let i = 0, n = colors.getCount(); i < n; i++) {
        colors.getElement(i, element);
        for (let channel = 0; channel < 3; channel++) element[channel] = srgbToLinear(element[channel]);
        colors.setElement(i, element);
      }
    }
  }
  return done.size;
}
