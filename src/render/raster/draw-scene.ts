import { viewProjection } from '../camera.ts';
import type { FramedCamera } from '../camera.ts';
import { downsample } from '../downsample.ts';
import { ALPHA_BLEND, ALPHA_MASK } from '../draw-primitive.ts';
import type { DrawPrimitive } from '../draw-primitive.ts';
import type { Framebuffer } from './framebuffer.ts';
import { cameraLighting } from './lighting.ts';
import { RASTER_ALPHA_TEST, RASTER_BLEND, RASTER_VISIBILITY } from './fill-triangle.ts';
import {
  FACES_ALL,
  FACES_BACK,
  FACES_FRONT,
  buildDepthTiles,
  projectVertices,
  rasterizePrimitive,
} from './rasterize.ts';
import { rasterizePoints } from './rasterize-points.ts';
import { scratchFloat32 } from './scratch-arrays.ts';
import { shadeVisible } from './shade-visible.ts';

/**
 * Draws `primitives` into `fb` in three passes: opaque and masked geometry into the visibility
 * buffer, one shading pass over the visible samples (so hidden fragments are never shaded, and
 * samples of one pixel that see the same triangle share a shading; see {@link shadeVisible}), then
 * blended primitives back to front over the result (only if `fb` has a colour buffer). Returns
 * the image downsampled by `supersample`, linear premultiplied RGBA, in a scratch array (see scratch-arrays.ts)
 * when nothing is blended: read it before the next render.
 */
export function drawScene(
  fb: Framebuffer,
  primitives: readonly DrawPrimitive[],
  camera: FramedCamera,
  supersample: number,
  cullBackFaces: boolean,
): Float32Array {
  const vp = viewProjection(camera, fb.width / fb.height);
  const light = cameraLighting(camera);
  const texel = new Float32Array(4);
  const shaded = new Float32Array(4);
  const screens = primitives.map((p) => projectVertices(p.positions, vp, fb.width, fb.height));

  // Back faces of single-sided surfaces only show through holes, so they are drawn after all
  // front faces, against a coarse depth map that rejects most of them (all, on closed meshes)
  // before any per-sample work; culling them instead would punch holes in badly wound meshes.
  let backFaces = false;
  // Points are splats about 1/256 of the image wide, whatever the resolution, drawn opaque.
  const splat = Math.max(1, Math.round(fb.width / 256 / supersample)) * supersample;
  for (let i = 0; i < primitives.length; i++) {
    const p = primitives[i];
    if (p.points) {
      rasterizePoints(fb, screens[i], i, splat);
      continue;
    }
    if (p.alphaMode === ALPHA_BLEND) continue;
    const mode = p.alphaMode === ALPHA_MASK ? RASTER_ALPHA_TEST : RASTER_VISIBILITY;
    const faces = p.doubleSided ? FACES_ALL : FACES_FRONT;
    rasterizePrimitive(fb, p, screens[i], i, mode, faces, null, light, texel, shaded);
    if (!p.doubleSided && !cullBackFaces) backFaces = true;
  }
  if (backFaces) {
    const hiZ = buildDepthTiles(fb);
    for (let i = 0; i < primitives.length; i++) {
      const p = primitives[i];
      if (p.alphaMode === ALPHA_BLEND || p.doubleSided || p.points) continue;
      const mode = p.alphaMode === ALPHA_MASK ? RASTER_ALPHA_TEST : RASTER_VISIBILITY;
      rasterizePrimitive(fb, p, screens[i], i, mode, FACES_BACK, hiZ, light, texel, shaded);
    }
  }

  const pixels = scratchFloat32(
    'draw-scene.pixels',
    Math.floor(fb.width / supersample) * Math.floor(fb.height / supersample) * 4,
  ).fill(0);
  shadeVisible(fb, supersample, primitives, screens, light, pixels);
  if (fb.color === null) return pixels;

  const [ex, ey, ez] = camera.eye;
  const distance = (p: DrawPrimitive): number =>
    (p.center[0] - ex) ** 2 + (p.center[1] - ey) ** 2 + (p.center[2] - ez) ** 2;
  const blended = primitives
    .map((p, i) => ({ i, d: distance(p) }))
    .filter(({ i }) => primitives[i].alphaMode === ALPHA_BLEND && !primitives[i].points)
    .sort((a, b) => b.d - a.d);
  for (const { i } of blended) {
    const faces = cullBackFaces && !primitives[i].doubleSided ? FACES_FRONT : FACES_ALL;
    rasterizePrimitive(fb, primitives[i], screens[i], i, RASTER_BLEND, faces, null, light, texel, shaded);
  }
  return downsample(fb.color, fb.width, fb.height, supersample);
}
