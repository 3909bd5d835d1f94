/** Image types accepted as thumbnails. */
export type ThumbnailType = 'png' | 'jpg';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Judges an image by its first bytes (never its name or declared type): PNG, JPEG, or undefined. */
export function sniffImageType(head: Uint8Array): ThumbnailType | undefined {
  if (head.length >= 8 && PNG_SIGNATURE.every((byte, index) => head[index] === byte)) return 'png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpg';
  return undefined;
}

/** Width and height in pixels of an image. */
export interface ImageSize {
  width: number;
  height: number;
}

/**
 * The size a PNG or JPEG declares in its header, read without decoding (so a huge declared size costs nothing);
 * undefined when the header is missing or cut off.
 */
export function declaredImageSize(bytes: Uint8Array, type: ThumbnailType): ImageSize | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === 'png') {
    // The IHDR chunk comes first: length (4), "IHDR" (4), width (4), height (4).
    if (bytes.length < 24 || String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return undefined;
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  // JPEG: walk the marker segments to the first start-of-frame, which holds height then width.
  let offset = 2;
  while (offset + 9 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset++; // fill byte
      continue;
    }
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isStartOfFrame) return { width: view.getUint16(offset + 7), height: view.getUint16(offset + 5) };
    offset += 2 + view.getUint16(offset + 2);
  }
  return undefined;
}
