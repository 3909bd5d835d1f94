import type sharpModule from 'sharp';
import { TEXTURE_LADDER_DEFAULTS, TEXTURE_LADDER_SIZES, ladderImage } from '../lods/texture-ladder.ts';
import type { TextureLadderCache } from '../lods/texture-ladder.ts';
import type { TriangleSoup } from './triangle-soup.ts';
import type { StepContext } from '../types.ts';

/** Step name used in logs. */
export const NAME = 'tile-textures';

/** An image as a tile embeds it. */
export interface TileImage {
  image: Uint8Array;
  mimeType: string;
}

/** Options of {@link createTileTextures}. */
export interface TileTexturesOptions {
  /** The sharp module (passed in: it is a native dependency). */
  sharp: typeof sharpModule;
  /** The conversion's encodings, shared with the levels: a rung the levels encoded is not encoded again. */
  cache: TextureLadderCache;
}

/** The soup's texture images for tiles `height` levels above the leaves (0: a leaf), one per soup texture. */
export type TileTextures = (height: number) => Promise<TileImage[]>;

/**
 * The images tiles embed, by their height in the tree, on the levels' texture ladder, as WebP: leaves within LOD
 * 1's 1024 px, every tile above within LOD 2's 512 px. Each tile embeds its own copy (a GLB cannot share an image
 * with another), so a leaf with LOD 0's 4096 px would add up to a 4096² texture a leaf to the tileset and to the
 * viewer's GPU memory for every leaf it holds; the full size stays in LOD 0. Each rung of an image is encoded once,
 * and shared with the levels through the cache; the answer for each rung is kept for the whole tree.
 */
export function createTileTextures(
  soup: TriangleSoup,
  options: TileTexturesOptions,
  context: StepContext,
): TileTextures {
  const rungs = new Map<number, Promise<TileImage[]>>();
  return (height) => {
    const rung = Math.min(height + 1, TEXTURE_LADDER_SIZES.length - 1);
    let images = rungs.get(rung);
    if (!images) {
      images = Promise.all(
        soup.textures.map(async (texture): Promise<TileImage> => {
          const encoded = await ladderImage(
            texture.image,
            texture.mimeType,
            // Tiles carry base-colour textures only: colour, sRGB.
            { isColor: true, name: texture.name },
            {
              ...TEXTURE_LADDER_DEFAULTS,
              sharp: options.sharp,
              maxSize: TEXTURE_LADDER_SIZES[rung],
              cache: options.cache,
            },
            context,
          );
          return encoded ? { image: encoded.bytes, mimeType: 'image/webp' } : texture;
        }),
      );
      rungs.set(rung, images);
    }
    return images;
  };
}
