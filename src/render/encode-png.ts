import type sharpModule from 'sharp';

/** Encodes straight-alpha RGBA bytes as a PNG with sharp. */
export function encodePng(
  rgba: Uint8Array,
  width: number,
  height: number,
  sharp: typeof sharpModule,
): Promise<Buffer> {
  return sharp(rgba, { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 6, adaptiveFiltering: true })
    .toBuffer();
}
