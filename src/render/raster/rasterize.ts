import type { DrawPrimitive } from '../draw-primitive.ts';
import type { Framebuffer } from './framebuffer.ts';
import type { Lighting } from './lighting.ts';
import { fillSpans, isTopLeft, RASTER_VISIBILITY, setUpEdges, SUBPIXEL } from './fill-triangle.ts';

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
  const { width, depth } = fb;
  const primIds = fb.primitive;
  const triIds = fb.triangle;
  const indices = p.indices;
  const tiles = hiZ === null ? null : hiZ.maxDepth;
  const tilesPerRow = hiZ === null ? 0 : hiZ.columns;
  const triangles = indices.length / 3;
  const maxX = width - 1;
  const maxY = fb.height - 1;

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
    const za = screen[i0 + 2];
    const zb = screen[i1 + 2];
    const zc = screen[i2 + 2];
    if (tiles !== null && hiddenByTiles(tiles, tilesPerRow, za, zb, zc, minPx, minPy, maxPx, maxPy)) continue;

    const span = maxPx - minPx;
    if (span >= 4 || mode !== RASTER_VISIBILITY) {
      setUpEdges(x0, y0, x1, y1, x2, y2, za, zb, zc, area, minPx, minPy);
      fillSpans(fb, p, screen, primitiveIndex, t, minPx, minPy, maxPy, span, mode, light, texel, shaded);
      continue;
    }

    // Small triangles (most of a dense mesh): testing each sample beats solving spans. Their setup (that of
    // setUpEdges) and loop stay inline: a call and a trip through its scratch per triangle cost 9 % on 1 M triangles.
    const invArea = 1 / area;
    const z0 = za * invArea;
    const z1 = zb * invArea;
    const z2 = zc * invArea;
    const a0 = (y1 - y2) * SUBPIXEL;
    const c0 = (x2 - x1) * SUBPIXEL;
    const a1 = (y2 - y0) * SUBPIXEL;
    const c1 = (x0 - x2) * SUBPIXEL;
    const a2 = (y0 - y1) * SUBPIXEL;
    const c2 = (x1 - x0) * SUBPIXEL;
    const sx = minPx * SUBPIXEL + SUBPIXEL / 2;
    const sy = minPy * SUBPIXEL + SUBPIXEL / 2;
    const bias0 = isTopLeft(x1, y1, x2, y2) ? 0 : -1;
    const bias1 = isTopLeft(x2, y2, x0, y0) ? 0 : -1;
    const bias2 = isTopLeft(x0, y0, x1, y1) ? 0 : -1;
    let row0 = (x2 - x1) * (sy - y1) - (y2 - y1) * (sx - x1) + bias0;
    let row1 = (x0 - x2) * (sy - y2) - (y0 - y2) * (sx - x2) + bias1;
    let row2 = (x1 - x0) * (sy - y0) - (y1 - y0) * (sx - x0) + bias2;
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
  }
}

/** Whether a triangle whose nearest depth is the least of `za`, `zb`, `zc` is behind everything drawn in every tile it touches. */
function hiddenByTiles(
  tiles: Float32Array,
  tilesPerRow: number,
  za: number,
  zb: number,
  zc: number,
  minPx: number,
  minPy: number,
  maxPx: number,
  maxPy: number,
): boolean {
  const zMin = za < zb ? (za < zc ? za : zc) : zb < zc ? zb : zc;
  for (let ty = minPy >> TILE_SHIFT; ty <= maxPy >> TILE_SHIFT; ty++) {
    for (let tx = minPx >> TILE_SHIFT; tx <= maxPx >> TILE_SHIFT; tx++) {
      if (!(zMin >= tiles[ty * tilesPerRow + tx])) return false;
    }
  }
  return true;
}
