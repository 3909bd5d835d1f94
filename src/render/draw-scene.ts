import { viewProjection } from './camera.ts';
import type { FramedCamera } from './camera.ts';
import { ALPHA_BLEND, ALPHA_MASK } from './draw-primitive.ts';
import type { DrawPrimitive } from './draw-primitive.ts';
import type { Framebuffer } from './framebuffer.ts';
import { cameraLighting } from './lighting.ts';
import {
  RASTER_ALPHA_TEST,
  RASTER_BLEND,
  RASTER_VISIBILITY,
  projectVertices,
  rasterizePrimitive,
} from './rasterize.ts';
import { shadeFragment } from './shade-fragment.ts';

/**
 * Draws `primitives` into `fb` in three passes: opaque and masked geometry into the visibility
 * buffer, one shading pass over the visible samples (so hidden fragments are never shaded), then
 * blended primitives back to front over the result.
 */
export function drawScene(
  fb: Framebuffer,
  primitives: readonly DrawPrimitive[],
  camera: FramedCamera,
  cullBackFaces: boolean,
): void {
  const vp = viewProjection(camera, fb.width / fb.height);
  const light = cameraLighting(camera);
  const texel = new Float32Array(4);
  const shaded = new Float32Array(4);
  const screens = primitives.map((p) => projectVertices(p.positions, vp, fb.width, fb.height));

  for (let i = 0; i < primitives.length; i++) {
    const p = primitives[i];
    if (p.alphaMode === ALPHA_BLEND) continue;
    const mode = p.alphaMode === ALPHA_MASK ? RASTER_ALPHA_TEST : RASTER_VISIBILITY;
    rasterizePrimitive(fb, p, screens[i], i, mode, cullBackFaces, light, texel, shaded);
  }

  const { width, height, color } = fb;
  const primIds = fb.primitive;
  const triIds = fb.triangle;
  for (let y = 0; y < height; y++) {
    for (let x = 0, index = y * width; x < width; x++, index++) {
      const id = primIds[index];
      if (id < 0) continue;
      shadeFragment(primitives[id], screens[id], triIds[index], x + 0.5, y + 0.5, light, texel, shaded);
      // Opaque and masked surfaces cover their sample fully whatever their alpha.
      const o = index * 4;
      color[o] = shaded[0];
      color[o + 1] = shaded[1];
      color[o + 2] = shaded[2];
      color[o + 3] = 1;
    }
  }

  const [ex, ey, ez] = camera.eye;
  const distance = (p: DrawPrimitive): number =>
    (p.center[0] - ex) ** 2 + (p.center[1] - ey) ** 2 + (p.center[2] - ez) ** 2;
  const blended = primitives
    .map((p, i) => ({ i, d: distance(p) }))
    .filter(({ i }) => primitives[i].alphaMode === ALPHA_BLEND)
    .sort((a, b) => b.d - a.d);
  for (const { i } of blended) {
    rasterizePrimitive(fb, primitives[i], screens[i], i, RASTER_BLEND, cullBackFaces, light, texel, shaded);
  }
}
