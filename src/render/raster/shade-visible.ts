import type { DrawPrimitive } from '../draw-primitive.ts';
import type { Framebuffer } from './framebuffer.ts';
import type { Lighting } from './lighting.ts';
import { shadeFragment } from './shade-fragment.ts';

/**
 * Shades the visibility buffer MSAA-style: within each output pixel's `factor × factor` block,
 * the samples that see the same triangle share one shading computed at their centroid. Interior
 * pixels thus cost one shading instead of factor², while edges keep their per-sample coverage.
 * Opaque and masked surfaces have alpha 1. With a colour buffer in `fb` (something will be
 * blended on top) the samples are written there; otherwise each block is averaged with the
 * background straight into `pixels` (linear premultiplied RGBA, one entry per output pixel).
 */
export function shadeVisible(
  fb: Framebuffer,
  factor: number,
  primitives: readonly DrawPrimitive[],
  screens: readonly Float32Array[],
  light: Lighting,
  pixels: Float32Array,
): void {
  const { width, height, color, background } = fb;
  const pixelsPerRow = Math.floor(width / factor);
  const inv = 1 / (factor * factor);
  const primIds = fb.primitive;
  const triIds = fb.triangle;
  const groups = blockGroups(factor * factor);
  const texel = new Float32Array(4);
  const shaded = new Float32Array(4);

  for (let by = 0; by + factor <= height; by += factor) {
    for (let bx = 0; bx + factor <= width; bx += factor) {
      const out = ((by / factor) * pixelsPerRow + bx / factor) * 4;
      // Fast path for the common interior block where every sample sees the same triangle. It stays
      // inline: calls for it on every block cost several per cent of the whole render.
      const first = by * width + bx;
      const prim = primIds[first];
      const tri = triIds[first];
      let uniform = prim >= 0;
      for (let sy = 0; uniform && sy < factor; sy++) {
        for (let sx = 0, index = first + sy * width; sx < factor; sx++, index++) {
          if (primIds[index] !== prim || triIds[index] !== tri) {
            uniform = false;
            break;
          }
        }
      }
      if (uniform) {
        const half = factor / 2;
        shadeFragment(primitives[prim], screens[prim], tri, bx + half, by + half, light, texel, shaded);
        const r = shaded[0];
        const g = shaded[1];
        const b = shaded[2];
        if (color === null) {
          pixels[out] = r;
          pixels[out + 1] = g;
          pixels[out + 2] = b;
          pixels[out + 3] = 1;
          continue;
        }
        for (let sy = 0; sy < factor; sy++) {
          for (let sx = 0, o = (first + sy * width) * 4; sx < factor; sx++, o += 4) {
            color[o] = r;
            color[o + 1] = g;
            color[o + 2] = b;
            color[o + 3] = 1;
          }
        }
        continue;
      }
      const count = groupSamples(primIds, triIds, width, bx, by, factor, groups);
      if (count === 0) {
        if (color === null) {
          pixels[out] = background[0];
          pixels[out + 1] = background[1];
          pixels[out + 2] = background[2];
          pixels[out + 3] = background[3];
        }
        continue;
      }
      shadeGroups(count, groups, primitives, screens, light, texel, shaded);
      if (color === null) averageGroups(count, groups, background, factor, inv, pixels, out);
      else writeGroupSamples(groups, color, width, bx, by, factor);
    }
  }
}

/** Scratch for one block's samples grouped by the triangle they see: allocated once per pass, reused by every block. */
interface BlockGroups {
  /** Per group, the primitive and triangle its samples see. */
  prim: Int32Array;
  tri: Int32Array;
  /** Per group, the sums of its sample positions and their number (the centroid is sum / count). */
  x: Float64Array;
  y: Float64Array;
  count: Int32Array;
  /** Per sample of the block, row by row, its group (−1 for an empty sample). */
  sampleGroup: Int32Array;
  /** Scratch of {@link mergeByPrimitive}. */
  remap: Int32Array;
  best: Int32Array;
  /** Per group, its shaded linear RGB. */
  color: Float32Array;
}

/** {@link BlockGroups} for blocks of `block` samples (at most that many groups). */
function blockGroups(block: number): BlockGroups {
  return {
    prim: new Int32Array(block),
    tri: new Int32Array(block),
    x: new Float64Array(block),
    y: new Float64Array(block),
    count: new Int32Array(block),
    sampleGroup: new Int32Array(block),
    remap: new Int32Array(block),
    best: new Int32Array(block),
    color: new Float32Array(block * 3),
  };
}

/** Groups the samples of the block at (bx, by) by the triangle they see, into `groups`; returns how many groups. */
function groupSamples(
  primIds: Int32Array,
  triIds: Int32Array,
  width: number,
  bx: number,
  by: number,
  factor: number,
  groups: BlockGroups,
): number {
  const { prim: groupPrim, tri: groupTri, x: groupX, y: groupY, count: groupCount, sampleGroup } = groups;
  let count = 0;
  let s = 0;
  for (let sy = by; sy < by + factor; sy++) {
    for (let sx = bx, index = sy * width + bx; sx < bx + factor; sx++, index++, s++) {
      const prim = primIds[index];
      if (prim < 0) {
        sampleGroup[s] = -1;
        continue;
      }
      const tri = triIds[index];
      let g = 0;
      while (g < count && (groupPrim[g] !== prim || groupTri[g] !== tri)) g++;
      if (g === count) {
        groupPrim[g] = prim;
        groupTri[g] = tri;
        groupX[g] = 0;
        groupY[g] = 0;
        groupCount[g] = 0;
        count++;
      }
      groupX[g] += sx + 0.5;
      groupY[g] += sy + 0.5;
      groupCount[g]++;
      sampleGroup[s] = g;
    }
  }
  // Three or more triangles in one pixel means they are tiny (a dense mesh): shading each costs
  // more than everything else while their normals barely differ, so each primitive gets one
  // shading there. One or two triangles (edges and creases of coarse meshes) keep their own.
  if (count > 2) {
    const { remap } = groups;
    count = mergeByPrimitive(count, groupPrim, groupTri, groupX, groupY, groupCount, remap, groups.best);
    for (let k = 0; k < s; k++) if (sampleGroup[k] >= 0) sampleGroup[k] = remap[sampleGroup[k]];
  }
  return count;
}

/** Shades each of the first `count` groups once, at the centroid of its samples, into `groups.color`. */
function shadeGroups(
  count: number,
  groups: BlockGroups,
  primitives: readonly DrawPrimitive[],
  screens: readonly Float32Array[],
  light: Lighting,
  texel: Float32Array,
  shaded: Float32Array,
): void {
  const { prim, tri, x, y, count: samples, color: groupColor } = groups;
  for (let g = 0; g < count; g++) {
    const n = samples[g];
    const p = prim[g];
    shadeFragment(primitives[p], screens[p], tri[g], x[g] / n, y[g] / n, light, texel, shaded);
    groupColor[g * 3] = shaded[0];
    groupColor[g * 3 + 1] = shaded[1];
    groupColor[g * 3 + 2] = shaded[2];
  }
}

/** Writes the coverage-weighted average of the groups to `pixels` at `out`, the background filling the empty samples. */
function averageGroups(
  count: number,
  groups: BlockGroups,
  background: Float32Array,
  factor: number,
  inv: number,
  pixels: Float32Array,
  out: number,
): void {
  const groupColor = groups.color;
  const groupCount = groups.count;
  let r = 0;
  let g = 0;
  let b = 0;
  let covered = 0;
  for (let k = 0; k < count; k++) {
    const n = groupCount[k];
    r += groupColor[k * 3] * n;
    g += groupColor[k * 3 + 1] * n;
    b += groupColor[k * 3 + 2] * n;
    covered += n;
  }
  const empty = factor * factor - covered;
  pixels[out] = (r + background[0] * empty) * inv;
  pixels[out + 1] = (g + background[1] * empty) * inv;
  pixels[out + 2] = (b + background[2] * empty) * inv;
  pixels[out + 3] = (covered + background[3] * empty) * inv;
}

/** Writes each covered sample of the block at (bx, by) into the colour buffer with its group's shading. */
function writeGroupSamples(
  groups: BlockGroups,
  color: Float32Array,
  width: number,
  bx: number,
  by: number,
  factor: number,
): void {
  const { color: groupColor, sampleGroup } = groups;
  let s = 0;
  for (let sy = by; sy < by + factor; sy++) {
    for (let sx = bx, index = sy * width + bx; sx < bx + factor; sx++, index++, s++) {
      const k = sampleGroup[s];
      if (k < 0) continue;
      const o = index * 4;
      color[o] = groupColor[k * 3];
      color[o + 1] = groupColor[k * 3 + 1];
      color[o + 2] = groupColor[k * 3 + 2];
      color[o + 3] = 1;
    }
  }
}

/**
 * Collapses the groups of one pixel that share a primitive, in place: counts and centroids add up
 * and the triangle covering most samples represents them (`best` is scratch space for that). Fills
 * `remap` (old group → new group) and returns the new number of groups.
 */
function mergeByPrimitive(
  groups: number,
  prim: Int32Array,
  tri: Int32Array,
  x: Float64Array,
  y: Float64Array,
  count: Int32Array,
  remap: Int32Array,
  best: Int32Array,
): number {
  let merged = 0;
  for (let g = 0; g < groups; g++) {
    let m = 0;
    while (m < merged && prim[m] !== prim[g]) m++;
    remap[g] = m;
    if (m === merged) {
      // g ≥ m, so moving group g down to slot m never overwrites a group still to be read.
      prim[m] = prim[g];
      tri[m] = tri[g];
      x[m] = x[g];
      y[m] = y[g];
      count[m] = count[g];
      best[m] = count[g];
      merged++;
      continue;
    }
    if (count[g] > best[m]) {
      tri[m] = tri[g];
      best[m] = count[g];
    }
    x[m] += x[g];
    y[m] += y[g];
    count[m] += count[g];
  }
  return merged;
}
