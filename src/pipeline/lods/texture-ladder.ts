import { createHash } from 'node:crypto';
import type { Document, Texture } from '@gltf-transform/core';
import { EXTTextureWebP } from '@gltf-transform/extensions';
import { getTextureColorSpace } from '@gltf-transform/functions';
import type sharpModule from 'sharp';
import type { StepContext } from '../types.ts';

/** Step name used in logs. */
export const NAME = 'texture-ladder';

/** How the textures of each level are written: `webp` resizes and re-encodes them, `source` keeps them as they came. */
export type LodTextureFormat = 'webp' | 'source';

/** Largest texture side per level of detail: LOD 0 up to 4096, LOD 1 up to 1024, LOD 2 up to 512. */
export const TEXTURE_LADDER_SIZES: readonly [number, number, number] = [4096, 1024, 512];

/** Encoded images by source image, size and role, so a texture small enough for several levels is encoded once. */
export type TextureLadderCache = Map<string, Promise<EncodedImage | null>>;

/** Options of {@link applyTextureLadder}. */
export interface TextureLadderOptions {
  /** The sharp module (passed in: it is a native dependency). */
  sharp: typeof sharpModule;
  /** Longest side a texture keeps; larger ones are scaled down, keeping their aspect ratio. */
  maxSize: number;
  /** Quality (0–100) of colour textures, encoded lossy. */
  colorQuality: number;
  /** Encoded images shared between the levels of one conversion; none by default. */
  cache?: TextureLadderCache;
}

/** Defaults for {@link TextureLadderOptions} (sharp and the size must be given). */
export const TEXTURE_LADDER_DEFAULTS: Omit<TextureLadderOptions, 'sharp' | 'maxSize'> = {
  colorQuality: 85,
};

/** A re-encoded image and its size. */
export interface EncodedImage {
  bytes: Uint8Array;
  width: number;
  height: number;
}

/** Puts back what {@link applyTextureLadder} changed. */
export type RestoreTextures = () => void;

/**
 * Resizes each texture of `document` to fit `maxSize` and encodes it as WebP (`EXT_texture_webp`), in place, and
 * returns a function that puts the original images back, so the next level starts again from the source images.
 * Colour textures (sRGB) are encoded lossy; normal, metallic-roughness and occlusion maps lossless, which
 * works on RGB itself: lossy WebP's YUV 4:2:0 would mix a normal's X, Y and Z, and the channels of packed data.
 * Alpha is kept. An image sharp cannot read, or one that WebP would only make larger at the same size, is kept.
 */
export async function applyTextureLadder(
  document: Document,
  options: Partial<TextureLadderOptions> & Pick<TextureLadderOptions, 'sharp' | 'maxSize'>,
  context: StepContext,
): Promise<RestoreTextures> {
  const settings: TextureLadderOptions = { ...TEXTURE_LADDER_DEFAULTS, ...options };
  const originals: { texture: Texture; image: Uint8Array; mimeType: string; uri: string }[] = [];
  const hadWebp = document
    .getRoot()
    .listExtensionsUsed()
    .some((extension) => extension.extensionName === EXTTextureWebP.EXTENSION_NAME);
  let encodedAny = false;
  for (const texture of document.getRoot().listTextures()) {
    const image = texture.getImage();
    if (!image) continue;
    const encoded = await encodeCached(texture, image, settings, context);
    if (!encoded) continue;
    originals.push({ texture, image, mimeType: texture.getMimeType(), uri: texture.getURI() });
    texture
      .setImage(encoded.bytes)
      .setMimeType('image/webp')
      .setURI(texture.getURI().replace(/\.[^./\\]*$/, '') + (texture.getURI() ? '.webp' : ''));
    encodedAny = true;
  }
  const extension =
    encodedAny && !hadWebp ? document.createExtension(EXTTextureWebP).setRequired(true) : undefined;
  context.logger.debug(`${NAME}: ${originals.length} textures as WebP within ${settings.maxSize} px`);
  return () => {
    for (const { texture, image, mimeType, uri } of originals) {
      texture.setImage(image).setMimeType(mimeType).setURI(uri);
    }
    extension?.dispose();
  };
}

/** The WebP for one texture at this level, or null to keep its image; encodings are shared through the cache. */
async function encodeCached(
  texture: Texture,
  image: Uint8Array,
  settings: TextureLadderOptions,
  context: StepContext,
): Promise<EncodedImage | null> {
  const role = { isColor: getTextureColorSpace(texture) === 'srgb', name: texture.getName() };
  return ladderImage(image, texture.getMimeType(), role, settings, context);
}

/** What an image is for: colour (sRGB, encoded lossy) or data, and its name for warnings. */
export interface LadderImageRole {
  isColor: boolean;
  name: string;
}

/**
 * One image on a rung of the ladder: WebP within `maxSize`, or null to keep the image as it is (already small
 * enough and no smaller as WebP, or unreadable: a warning). Encodings are shared through `settings.cache` by the
 * image's bytes, size and role, so the levels and the tiles of one conversion encode each rung of an image once.
 */
export async function ladderImage(
  image: Uint8Array,
  mimeType: string,
  role: LadderImageRole,
  settings: TextureLadderOptions,
  context: StepContext,
): Promise<EncodedImage | null> {
  const digest = createHash('sha1').update(image).digest('hex');
  const key = `${digest}:${settings.maxSize}:${role.isColor ? 'color' : 'data'}`;
  const cache = settings.cache ?? new Map<string, Promise<EncodedImage | null>>();
  let pending = cache.get(key);
  if (!pending) {
    pending = encode(image, mimeType, role.isColor, settings).catch((error: unknown) => {
      context.logger.warn(`${NAME}: texture "${role.name}" kept as it is: ${(error as Error).message}`);
      return null;
    });
    cache.set(key, pending);
  }
  return pending;
}

/** Encodes one image as WebP within `maxSize`; null when the source is already as small and no resize is due. */
async function encode(
  image: Uint8Array,
  mimeType: string,
  isColor: boolean,
  settings: TextureLadderOptions,
): Promise<EncodedImage | null> {
  // Data textures hold numbers, not colours: an embedded ICC profile must not convert them.
  const input = () => settings.sharp(image, { ignoreIcc: !isColor, failOn: 'error' });
  const { width, height } = await input().metadata();
  if (!width || !height) throw new Error('image has no size');
  const scale = Math.min(1, settings.maxSize / Math.max(width, height));
  const target = {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
  const resized = scale < 1 ? input().resize(target.width, target.height, { fit: 'fill' }) : input();
  const webp = isColor
    ? resized.webp({ quality: settings.colorQuality, alphaQuality: 100, smartSubsample: true })
    : // Lossless at the lowest effort: exact, and 1.3 s for a 2048² normal map where near-lossless took 9.5-13 s
      // for 40 % fewer bytes (BENCHMARKS.md), a cost every conversion of a textured model would pay.
      resized.webp({ lossless: true, effort: 0 });
  const bytes = new Uint8Array(await webp.toBuffer());
  if (scale === 1 && (mimeType === 'image/webp' || bytes.byteLength >= image.byteLength)) return null;
  return { bytes, ...target };
}
