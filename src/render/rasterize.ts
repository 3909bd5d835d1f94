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

/** Draw front and back faces. */
export const FACES_ALL = 0;
/** Draw only faces turned towards the camera. */
export const FACES_FRONT = 1;
/** Draw only faces turned away from the camera. */
export const FACES_BACK = 2;

/** Tiles of 8×8 samples for the coarse depth test. */
const TILE_SHIFT = 3;

/** The farthest depth drawn in each 8×8-sample tile: a triangle entirely behind it cannot show there. */
export interface DepthTiles {
  /** Tiles per row. */
  columns: number;
  /** Per tile, the largest depth of its samples (+Infinity while any sample is empty). */
  maxDepth: Float32Array;
}

/** Builds {@link DepthTiles} from the depth buffer as it is now; it stays a safe bound as depth only decreases. */
export function buildDepthTiles(fb: Framebuffer): DepthTiles {
  const columns = (fb.width + (1 << TILE_SHIFT) - 1) >> TILE_SHIFT;
  const rows = (fb.height + (1 << TILE_SHIFT) - 1) >> TILE_SHIFT;
  const maxDepth = new Float32Array(columns * rows);
  const { width, height, depth } = fb;
  for (let y = 0; y < height; y++) {
    const row = (y >> TILE_SHIFT) * columns;
    for (let x = 0, index = y * width; x < width; x++, index++) {
      const tile = row + (x >> TILE_SHIFT);
      if (depth[index] > maxDepth[tile]) maxDepth[tile] = depth[index];
    }
  }
  return { columns, maxDepth };
}

/** Sub-sample precision of vertex positions: 8 bits, as GPUs snap them. */
const SUBPIXEL = 256;
const INV_SUBPIXEL = 1 / SUBPIXEL;
/** Projected coordinates beyond this many samples cannot come from a framed scene; skipping them keeps the integer edge maths exact. */
const LIMIT = (1 << 16) * SUBPIXEL;

/**
 * Projects world positions with the column-major view-projection `vp` to sample coordinates:
 * x right and y down in samples (snapped to 1/256), z as window depth 0–1, and 1/w. Vertices behind the eye or
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
    // Snapped once per vertex, so every triangle sharing it sees the very same position.
    out[v * 4] =
      Math.round(((vp[0] * x + vp[4] * y + vp[8] * z + vp[12]) * iw + 1) * hw * SUBPIXEL) / SUBPIXEL;
    out[v * 4 + 1] =
      Math.round((1 - (vp[1] * x + vp[5] * y + vp[9] * z + vp[13]) * iw) * hh * SUBPIXEL) / SUBPIXEL;
    out[v * 4 + 2] = ((vp[2] * x + vp[6] * y + vp[10] * z + vp[14]) * iw + 1) * 0.5;
    out[v * 4 + 3] = iw;
  }
  return out;
}

/**
 * Scan-converts every triangle of `p`. Vertices are snapped to 1/256 sample so edge functions are
 * exact integers (held in doubles): triangles sharing an edge never both cover, nor both miss, a
 * sample (top-left rule). Each row is solved for its covered span, so the inner loop only tests
 * depth. `mode` picks what a visible fragment does, `faces` which orientations are drawn; with
 * `hiZ`, triangles behind everything already drawn in their tiles are skipped before any setup.
 */
export function rasterizePrimitive(
  fb: Framebuffer,
  p: DrawPrimitive,
  screen: Float32Array,
  primitiveIndex: number,
  mode: number,
  faces: number,
  hiZ: DepthTiles | null,
  light: Lighting,
  texel: Float32Array,
  shaded: Float32Array,
): void {
  const { width, height, depth, color } = fb;
  const primIds = fb.primitive;
  const triIds = fb.triangle;
  const indices = p.indices;
  const tiles = hiZ === null ? null : hiZ.maxDepth;
  const tilesPerRow = hiZ === null ? 0 : hiZ.columns;
  const cutoff = p.alphaCutoff;
  const triangles = indices.length / 3;
  const maxX = width - 1;
  const maxY = height - 1;

  for (let t = 0; t < triangles; t++) {
    const i0 = indices[t * 3] * 4;
    let i1 = indices[t * 3 + 1] * 4;
    let i2 = indices[t * 3 + 2] * 4;
    const x0 = screen[i0] * SUBPIXEL;
    const y0 = screen[i0 + 1] * SUBPIXEL;
    let x1 = screen[i1] * SUBPIXEL;
    let y1 = screen[i1 + 1] * SUBPIXEL;
    let x2 = screen[i2] * SUBPIXEL;
    let y2 = screen[i2 + 1] * SUBPIXEL;
    let area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
    // Catches degenerate triangles and NaN vertices in one comparison.
    if (!(area > 0 || area < 0)) continue;
    if (area > 0) {
      // Clockwise on screen (y down) means the triangle faces away.
      if (faces === FACES_FRONT) continue;
    } else if (faces === FACES_BACK) {
      continue;
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
    const loX = x0 < x1 ? (x0 < x2 ? x0 : x2) : x1 < x2 ? x1 : x2;
    const hiX = x0 > x1 ? (x0 > x2 ? x0 : x2) : x1 > x2 ? x1 : x2;
    const loY = y0 < y1 ? (y0 < y2 ? y0 : y2) : y1 < y2 ? y1 : y2;
    const hiY = y0 > y1 ? (y0 > y2 ? y0 : y2) : y1 > y2 ? y1 : y2;
    if (loX < -LIMIT || loY < -LIMIT || hiX > LIMIT || hiY > LIMIT) continue;
    // Samples sit at pixel centres: sample px covers fixed-point x = px·256 + 128.
    let minPx = Math.ceil(loX * INV_SUBPIXEL - 0.5);
    let maxPx = Math.floor(hiX * INV_SUBPIXEL - 0.5);
    let minPy = Math.ceil(loY * INV_SUBPIXEL - 0.5);
    let maxPy = Math.floor(hiY * INV_SUBPIXEL - 0.5);
    if (minPx < 0) minPx = 0;
    if (minPy < 0) minPy = 0;
    if (maxPx > maxX) maxPx = maxX;
    if (maxPy > maxY) maxPy = maxY;
    if (minPx > maxPx || minPy > maxPy) continue;
    if (tiles !== null) {
      // Skip the triangle when its nearest point is behind everything already drawn in every tile it touches.
      const za = screen[i0 + 2];
      const zb = screen[i1 + 2];
      const zc = screen[i2 + 2];
      const zMin = za < zb ? (za < zc ? za : zc) : zb < zc ? zb : zc;
      let hidden = true;
      for (let ty = minPy >> TILE_SHIFT; hidden && ty <= maxPy >> TILE_SHIFT; ty++) {
        for (let tx = minPx >> TILE_SHIFT; tx <= maxPx >> TILE_SHIFT; tx++) {
          if (!(zMin >= tiles[ty * tilesPerRow + tx])) {
            hidden = false;
            break;
          }
        }
      }
      if (hidden) continue;
    }

    const invArea = 1 / area;
    const z0 = screen[i0 + 2] * invArea;
    const z1 = screen[i1 + 2] * invArea;
    const z2 = screen[i2 + 2] * invArea;
    // E(a, b, p) = (b.x − a.x)(p.y − a.y) − (b.y − a.y)(p.x − a.x); a* step one sample right, c* one down.
    const a0 = (y1 - y2) * SUBPIXEL;
    const c0 = (x2 - x1) * SUBPIXEL;
    const a1 = (y2 - y0) * SUBPIXEL;
    const c1 = (x0 - x2) * SUBPIXEL;
    const a2 = (y0 - y1) * SUBPIXEL;
    const c2 = (x1 - x0) * SUBPIXEL;
    const sx = minPx * SUBPIXEL + SUBPIXEL / 2;
    const sy = minPy * SUBPIXEL + SUBPIXEL / 2;
    // A sample exactly on an edge belongs to the triangle only if the edge is top or left.
    const bias0 = isTopLeft(x1, y1, x2, y2) ? 0 : -1;
    const bias1 = isTopLeft(x2, y2, x0, y0) ? 0 : -1;
    const bias2 = isTopLeft(x0, y0, x1, y1) ? 0 : -1;
    let row0 = (x2 - x1) * (sy - y1) - (y2 - y1) * (sx - x1);
    let row1 = (x0 - x2) * (sy - y2) - (y0 - y2) * (sx - x2);
    let row2 = (x1 - x0) * (sy - y0) - (y1 - y0) * (sx - x0);
    const dz = a0 * z0 + a1 * z1 + a2 * z2;
    const span = maxPx - minPx;

    if (span < 4 && mode === RASTER_VISIBILITY) {
      // Small triangles (most of a dense mesh): testing each sample beats solving spans.
      row0 += bias0;
      row1 += bias1;
      row2 += bias2;
      for (let py = minPy; py <= maxPy; py++, row0 += c0, row1 += c1, row2 += c2) {
        let e0 = row0;
        let e1 = row1;
        let e2 = row2;
        for (
          let index = py * width + minPx, end = index + span;
          index <= end;
          index++, e0 += a0, e1 += a1, e2 += a2
        ) {
          if (e0 < 0 || e1 < 0 || e2 < 0) continue;
          const z = (e0 - bias0) * z0 + (e1 - bias1) * z1 + (e2 - bias2) * z2;
          if (z < depth[index] && z >= 0 && z <= 1) {
            depth[index] = z;
            primIds[index] = primitiveIndex;
            triIds[index] = t;
          }
        }
      }
      continue;
    }

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
function isTopLeft(ax: number, ay: number, bx: number, by: number): boolean {
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
