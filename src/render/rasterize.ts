import type { DrawPrimitive } from './draw-primitive.ts';
import type { Framebuffer } from './framebuffer.ts';
import type { Lighting } from './lighting.ts';
import { shadeFragment } from './shade-fragment.ts';

/** Write depth and the visible triangle's id; shading happens once per sample afterwards. */
export const RASTER_VISIBILITY = 0;
/** As {@link RASTER_VISIBILITY}, discarding fragments whose alpha is below the material's cutoff. */
export const RASTER_ALPHA_TEST = 1;
/** Shade every fragment in front of the opaque depth and blend it over the colour buffer. */
export const RASTER_BLEND = 2;

/**
 * Projects world positions with the column-major view-projection `vp` to sample coordinates:
 * x right and y down in samples, z as window depth 0–1, and 1/w. Vertices behind the eye or
 * with non-finite coordinates get NaN so every triangle using them is skipped.
 */
export function projectVertices(
  positions: Float32Array,
  vp: Float64Array,
  width: number,
  height: number,
): Float32Array {
  const count = positions.length / 3;
  const out = new Float32Array(count * 4);
  const hw = width / 2;
  const hh = height / 2;
  for (let v = 0; v < count; v++) {
    const x = positions[v * 3];
    const y = positions[v * 3 + 1];
    const z = positions[v * 3 + 2];
    const cw = vp[3] * x + vp[7] * y + vp[11] * z + vp[15];
    if (!(cw > 1e-12) || !Number.isFinite(cw)) {
      out[v * 4] = NaN;
      continue;
    }
    const iw = 1 / cw;
    out[v * 4] = ((vp[0] * x + vp[4] * y + vp[8] * z + vp[12]) * iw + 1) * hw;
    out[v * 4 + 1] = (1 - (vp[1] * x + vp[5] * y + vp[9] * z + vp[13]) * iw) * hh;
    out[v * 4 + 2] = ((vp[2] * x + vp[6] * y + vp[10] * z + vp[14]) * iw + 1) * 0.5;
    out[v * 4 + 3] = iw;
  }
  return out;
}

/**
 * Scan-converts every triangle of `p` with edge functions over its clamped bounding box, testing
 * each covered sample centre against the depth buffer. `mode` picks what a passing fragment does.
 * Back faces are skipped only when `cullBackFaces` is set and the material is single-sided.
 */
export function rasterizePrimitive(
  fb: Framebuffer,
  p: DrawPrimitive,
  screen: Float32Array,
  primitiveIndex: number,
  mode: number,
  cullBackFaces: boolean,
  light: Lighting,
  texel: Float32Array,
  shaded: Float32Array,
): void {
  const { width, height, depth, color } = fb;
  const primIds = fb.primitive;
  const triIds = fb.triangle;
  const indices = p.indices;
  const cull = cullBackFaces && !p.doubleSided;
  const cutoff = p.alphaCutoff;
  const triangles = indices.length / 3;
  const maxX = width - 1;
  const maxY = height - 1;

  for (let t = 0; t < triangles; t++) {
    const i0 = indices[t * 3] * 4;
    let i1 = indices[t * 3 + 1] * 4;
    let i2 = indices[t * 3 + 2] * 4;
    const x0 = screen[i0];
    const y0 = screen[i0 + 1];
    let x1 = screen[i1];
    let y1 = screen[i1 + 1];
    let x2 = screen[i2];
    let y2 = screen[i2 + 1];
    let area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
    // Catches degenerate triangles and NaN vertices in one comparison.
    if (!(area > 0 || area < 0)) continue;
    if (area > 0) {
      // Clockwise on screen (y down) means the triangle faces away.
      if (cull) continue;
    } else {
      // Reorder so the edge functions below are positive inside.
      const ti = i1;
      i1 = i2;
      i2 = ti;
      const tx = x1;
      x1 = x2;
      x2 = tx;
      const ty = y1;
      y1 = y2;
      y2 = ty;
      area = -area;
    }
    let minPx = Math.ceil(Math.min(x0, x1, x2) - 0.5);
    let maxPx = Math.floor(Math.max(x0, x1, x2) - 0.5);
    let minPy = Math.ceil(Math.min(y0, y1, y2) - 0.5);
    let maxPy = Math.floor(Math.max(y0, y1, y2) - 0.5);
    if (minPx < 0) minPx = 0;
    if (minPy < 0) minPy = 0;
    if (maxPx > maxX) maxPx = maxX;
    if (maxPy > maxY) maxPy = maxY;
    if (minPx > maxPx || minPy > maxPy) continue;

    const invArea = 1 / area;
    const z0 = screen[i0 + 2] * invArea;
    const z1 = screen[i1 + 2] * invArea;
    const z2 = screen[i2 + 2] * invArea;
    // Edge function steps: E(a, b, p) = (b.x − a.x)(p.y − a.y) − (b.y − a.y)(p.x − a.x).
    const a0 = y1 - y2;
    const c0 = x2 - x1;
    const a1 = y2 - y0;
    const c1 = x0 - x2;
    const a2 = y0 - y1;
    const c2 = x1 - x0;
    const sx = minPx + 0.5;
    const sy = minPy + 0.5;
    let row0 = c0 * (sy - y1) + a0 * (sx - x1);
    let row1 = c1 * (sy - y2) + a1 * (sx - x2);
    let row2 = c2 * (sy - y0) + a2 * (sx - x0);

    for (let py = minPy; py <= maxPy; py++) {
      let e0 = row0;
      let e1 = row1;
      let e2 = row2;
      let index = py * width + minPx;
      for (let px = minPx; px <= maxPx; px++, index++) {
        if (e0 >= 0 && e1 >= 0 && e2 >= 0) {
          const z = e0 * z0 + e1 * z1 + e2 * z2;
          if (z < depth[index] && z >= 0 && z <= 1) {
            if (mode === RASTER_VISIBILITY) {
              depth[index] = z;
              primIds[index] = primitiveIndex;
              triIds[index] = t;
            } else {
              shadeFragment(p, screen, t, px + 0.5, py + 0.5, light, texel, shaded);
              if (mode === RASTER_ALPHA_TEST) {
                if (shaded[3] >= cutoff) {
                  depth[index] = z;
                  primIds[index] = primitiveIndex;
                  triIds[index] = t;
                }
              } else {
                blendOver(color, index * 4, shaded);
              }
            }
          }
        }
        e0 += a0;
        e1 += a1;
        e2 += a2;
      }
      row0 += c0;
      row1 += c1;
      row2 += c2;
    }
  }
}

/** Porter-Duff "over" of a straight-alpha fragment onto the premultiplied colour buffer. */
function blendOver(color: Float32Array, o: number, src: Float32Array): void {
  let a = src[3];
  a = a > 1 ? 1 : a > 0 ? a : 0;
  const keep = 1 - a;
  color[o] = src[0] * a + color[o] * keep;
  color[o + 1] = src[1] * a + color[o + 1] * keep;
  color[o + 2] = src[2] * a + color[o + 2] * keep;
  color[o + 3] = a + color[o + 3] * keep;
}
