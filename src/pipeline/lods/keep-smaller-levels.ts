import type { LodOutput } from '../types.ts';

/**
 * Most bytes LOD 1 and LOD 2 may keep, as a share of LOD 0's (textures included): a level that does not get this
 * much smaller saves a viewer too little download to be worth a file of its own.
 */
export const LEVEL_BYTE_SHARES: readonly [number, number] = [0.6, 0.3];

/**
 * The level as it goes into the model's `lods[]`: itself when its file is at most its share of LOD 0's and
 * smaller than the level before it; otherwise the level before it again, marked `reduced: false`, so no copy of a
 * level that could not shrink within its error bound is stored and a viewer asking for it gets the finer file.
 * Whole files are compared, as a viewer downloads them: a level whose geometry could not shrink may still be
 * worth its own file when the texture ladder made its images smaller.
 */
export function keepIfSmaller(
  lod: LodOutput,
  lods: readonly LodOutput[],
  shares: readonly [number, number] = LEVEL_BYTE_SHARES,
): LodOutput {
  const first = lods[0];
  const previous = lods[lods.length - 1];
  if (lod.level === 0 || !first || !previous) return lod;
  const bytes = lod.glb.byteLength;
  const share = shares[lod.level - 1];
  if (bytes <= first.glb.byteLength * share && bytes < previous.glb.byteLength) return lod;
  return { ...previous, level: lod.level, reduced: false };
}
