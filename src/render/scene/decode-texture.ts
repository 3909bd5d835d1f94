import type { Texture } from '@gltf-transform/core';
import type sharpModule from 'sharp';

/** A texture image decoded once to 8-bit RGBA (still sRGB-encoded), row 0 at the top. */
export interface DecodedTexture {
  width: number;
  height: number;
  /** `width × height × 4` bytes. */
  data: Uint8Array;
}

/**
 * Decodes a glTF texture's image with sharp. Returns `null` for images sharp cannot read (KTX2,
 * truncated files): the primitive is then drawn with its factors alone, which beats failing the thumbnail.
 */
export async function decodeTexture(
  texture: Texture,
  sharp: typeof sharpModule,
): Promise<DecodedTexture | null> {
  const image = texture.getImage();
  if (!image || image.byteLength === 0) return null;
  try {
    const { data, info } = await sharp(image, { failOn: 'none' })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4 || info.width === 0 || info.height === 0) return null;
    return {
      width: info.width,
      height: info.height,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    };
  } catch {
    return null;
  }
}
