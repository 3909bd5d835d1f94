import type sharpModule from 'sharp';

/** Encodes straight-alpha RGBA bytes as a PNG with sharp. */
export function encodePng(
  rgba: Uint8Array,
  width: number,
  height: number,
  sharp: typeof sharpModule,
): Promise<Buffer> {
  return (
    sharp(rgba, { raw: { width, height, channels: 4 } })
      // Adaptive filtering makes thumbnails larger here, and costs four times the time.
      .png({ compressionLevel: 6, adaptiveFiltering: false })
      .toBuffer()
  );
}
