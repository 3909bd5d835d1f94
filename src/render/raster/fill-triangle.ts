// The per-triangle half of rasterizing: edge functions set up once per triangle, then the sample loops
// that fill it. Kept apart from the triangle walk so each loop stays whole inside one function.
import type { DrawPrimitive } from '../draw-primitive.ts';
import type { Framebuffer } from './framebuffer.ts';
import type { Lighting } from './lighting.ts';
import { shadeFragment } from './shade-fragment.ts';

/** Write depth and the visible triangle's id; shading happens once per sample afterwards. */
export const RASTER_VISIBILITY = 0;
/** As {@link RASTER_VISIBILITY}, discarding fragments whose alpha is below the material's cutoff. */
export const RASTER_ALPHA_TEST = 1;
/** Shade every fragment in front of the opaque depth and blend it over the colour buffer. */
export const RASTER_BLEND = 2;

/** Sub-sample precision of vertex positions: 8 bits, as GPUs snap them. */
export const SUBPIXEL = 256;

/**
 * The current triangle's edge functions at its first sample and their steps, written by
 * {@link setUpEdges} and read once per triangle by {@link fillSpans}. One scratch array for the module,
 * not an object per triangle: rasterizing is synchronous and never re-enters.
 */
const edges = new Float64Array(16);
/** Step of each edge function one sample right. */
const A0 = 0;
const A1 = 1;
const A2 = 2;
/** Step of each edge function one sample down. */
const C0 = 3;
const C1 = 4;
const C2 = 5;
/** Each edge function at the first sample of the bounding box's first row, without bias. */
const ROW0 = 6;
const ROW1 = 7;
const ROW2 = 8;
/** 0 for a top or left edge, −1 otherwise: a sample exactly on the edge then falls outside. */
const BIAS0 = 9;
const BIAS1 = 10;
const BIAS2 = 11;
/** Vertex depths divided by the doubled area, so edge values weight them straight into a depth. */
const Z0 = 12;
const Z1 = 13;
const Z2 = 14;
/** Depth step one sample right. */
const DZ = 15;

/** Fills the edges set up last for a positively wound triangle (fixed-point vertices) whose bounding box starts at sample (minPx, minPy). */
export function setUpEdges(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  za: number,
  zb: number,
  zc: number,
  area: number,
  minPx: number,
  minPy: number,
): void {
  const invArea = 1 / area;
  const z0 = za * invArea;
  const z1 = zb * invArea;
  const z2 = zc * invArea;
  // E(a, b, p) = (b.x − a.x)(p.y − a.y) − (b.y − a.y)(p.x − a.x); a* step one sample right, c* one down.
  const a0 = (y1 - y2) * SUBPIXEL;
  const a1 = (y2 - y0) * SUBPIXEL;
  const a2 = (y0 - y1) * SUBPIXEL;
  const sx = minPx * SUBPIXEL + SUBPIXEL / 2;
  const sy = minPy * SUBPIXEL + SUBPIXEL / 2;
  edges[A0] = a0;
  edges[A1] = a1;
  edges[A2] = a2;
  edges[C0] = (x2 - x1) * SUBPIXEL;
  edges[C1] = (x0 - x2) * SUBPIXEL;
  edges[C2] = (x1 - x0) * SUBPIXEL;
  edges[ROW0] = (x2 - x1) * (sy - y1) - (y2 - y1) * (sx - x1);
  edges[ROW1] = (x0 - x2) * (sy - y2) - (y0 - y2) * (sx - x2);
  edges[ROW2] = (x1 - x0) * (sy - y0) - (y1 - y0) * (sx - x0);
  edges[BIAS0] = isTopLeft(x1, y1, x2, y2) ? 0 : -1;
  edges[BIAS1] = isTopLeft(x2, y2, x0, y0) ? 0 : -1;
  edges[BIAS2] = isTopLeft(x0, y0, x1, y1) ? 0 : -1;
  edges[Z0] = z0;
  edges[Z1] = z1;
  edges[Z2] = z2;
  edges[DZ] = a0 * z0 + a1 * z1 + a2 * z2;
}

/**
 * Solves each row of the triangle in the edges set up last for its covered span, then walks the span
 * testing depth only: writes visibility, shades and alpha-tests, or shades and blends, as `mode` says.
 */
export function fillSpans(
  fb: Framebuffer,
  p: DrawPrimitive,
  screen: Float32Array,
  primitiveIndex: number,
  t: number,
  minPx: number,
  minPy: number,
  maxPy: number,
  span: number,
  mode: number,
  light: Lighting,
  texel: Float32Array,
  shaded: Float32Array,
): void {
  const { width, depth, color } = fb;
  const primIds = fb.primitive;
  const triIds = fb.triangle;
  const cutoff = p.alphaCutoff;
  const a0 = edges[A0];
  const a1 = edges[A1];
  const a2 = edges[A2];
  const c0 = edges[C0];
  const c1 = edges[C1];
  const c2 = edges[C2];
  const bias0 = edges[BIAS0];
  const bias1 = edges[BIAS1];
  const bias2 = edges[BIAS2];
  const z0 = edges[Z0];
  const z1 = edges[Z1];
  const z2 = edges[Z2];
  const dz = edges[DZ];
  let row0 = edges[ROW0];
  let row1 = edges[ROW1];
  let row2 = edges[ROW2];
  for (let py = minPy; py <= maxPy; py++, row0 += c0, row1 += c1, row2 += c2) {
    let first = 0;
    let last = span;
    // Each edge bounds the row on one side: solve row + a·k + bias ≥ 0 for the sample offset k.
    const e0 = row0 + bias0;
    if (a0 > 0) first = Math.max(first, firstInside(e0, a0));
    else if (a0 < 0) last = Math.min(last, lastInside(e0, a0));
    else if (e0 < 0) continue;
    const e1 = row1 + bias1;
    if (a1 > 0) first = Math.max(first, firstInside(e1, a1));
    else if (a1 < 0) last = Math.min(last, lastInside(e1, a1));
    else if (e1 < 0) continue;
    const e2 = row2 + bias2;
    if (a2 > 0) first = Math.max(first, firstInside(e2, a2));
    else if (a2 < 0) last = Math.min(last, lastInside(e2, a2));
    else if (e2 < 0) continue;
    if (first > last) continue;

    let z = (row0 + a0 * first) * z0 + (row1 + a1 * first) * z1 + (row2 + a2 * first) * z2;
    let index = py * width + minPx + first;
    for (let k = first; k <= last; k++, index++, z += dz) {
      if (!(z < depth[index]) || z < 0 || z > 1) continue;
      if (mode === RASTER_VISIBILITY) {
        depth[index] = z;
        primIds[index] = primitiveIndex;
        triIds[index] = t;
        continue;
      }
      shadeFragment(p, screen, t, minPx + k + 0.5, py + 0.5, light, texel, shaded);
      if (mode === RASTER_ALPHA_TEST) {
        if (shaded[3] >= cutoff) {
          depth[index] = z;
          primIds[index] = primitiveIndex;
          triIds[index] = t;
        }
      } else if (color !== null) {
        blendOver(color, index * 4, shaded);
      }
    }
  }
}

/** Smallest k ≥ 0 with e + a·k ≥ 0, for a > 0; checked in exact integers after the division. */
function firstInside(e: number, a: number): number {
  if (e >= 0) return 0;
  let k = Math.ceil(-e / a);
  if (e + a * k < 0) k++;
  return k;
}

/** Largest k with e + a·k ≥ 0, for a < 0 (−1 when none). */
function lastInside(e: number, a: number): number {
  if (e < 0) return -1;
  let k = Math.floor(e / -a);
  if (e + a * k < 0) k--;
  return k;
}

/** Top edge (horizontal, interior below) or left edge (going up on screen), for a positively wound triangle. */
export function isTopLeft(ax: number, ay: number, bx: number, by: number): boolean {
  return (ay === by && bx > ax) || by < ay;
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
