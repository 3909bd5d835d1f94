/** Image types accepted as thumbnails. */
export type ThumbnailType = 'png' | 'jpg';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Judges an image by its first bytes (never its name or declared type): PNG, JPEG, or undefined. */
export function sniffImageType(head: Uint8Array): ThumbnailType | undefined {
  if (head.length >= 8 && PNG_SIGNATURE.every((byte, index) => head[index] === byte)) return 'png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpg';
  return undefined;
}
