import type { LodOutput } from '../types.ts';
import type { LodDocument } from './make-lods.ts';
import type { LodTextureFormat } from './texture-ladder.ts';

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

/**
 * Whether a level would be written byte for byte as the level before it was: LOD 2 that removed nothing from LOD 1
 * (both are quantized alike) with no texture made smaller for it (only WebP textures follow the ladder). Its file
 * need not be written: LOD 1's, as written, is judged in its place. At 100,000 parts each too small to simplify,
 * writing it again took as long as LOD 1.
 */
export function writesAsLevelBefore(
  lod: Pick<LodDocument, 'level' | 'removed' | 'document'>,
  textures: LodTextureFormat,
): boolean {
  return (
    lod.level === 2 &&
    !lod.removed &&
    (textures !== 'webp' || lod.document.getRoot().listTextures().length === 0)
  );
}
