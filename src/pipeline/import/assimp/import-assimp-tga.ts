/** Pixels of a decoded image, four 8-bit channels per pixel, top row first. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * Decodes a Truevision TGA image (true-colour, grey or colour-mapped; raw or RLE), because sharp
 * cannot read TGA and COLLADA and 3DS models often carry their textures in it. Throws on a
 * malformed or truncated file.
 */
export function decodeTga(bytes: Uint8Array): RgbaImage {
  if (bytes.length < 18) throw new Error('TGA header is truncated');
  const idLength = bytes[0];
  const colorMapType = bytes[1];
  const imageType = bytes[2];
  const mapFirst = bytes[3] | (bytes[4] << 8);
  const mapLength = bytes[5] | (bytes[6] << 8);
  const mapDepth = bytes[7];
  const width = bytes[12] | (bytes[13] << 8);
  const height = bytes[14] | (bytes[15] << 8);
  const depth = bytes[16];
  const descriptor = bytes[17];
  const rle = imageType >= 9;
  const kind = imageType & 7; // 1 colour-mapped, 2 true-colour, 3 grey
  if (![1, 2, 3].includes(kind) || imageType > 11 || (imageType > 3 && imageType < 9)) {
    throw new Error(`unsupported TGA image type ${imageType}`);
  }
  if (width === 0 || height === 0) throw new Error('TGA image has no pixels');
  if (![8, 15, 16, 24, 32].includes(depth)) throw new Error(`unsupported TGA pixel depth ${depth}`);

  let offset = 18 + idLength;
  let palette: Uint8Array | undefined;
  if (colorMapType === 1) {
    const entryBytes = Math.ceil(mapDepth / 8);
    const end = offset + mapLength * entryBytes;
    if (end > bytes.length) throw new Error('TGA colour map is truncated');
    palette = new Uint8Array((mapFirst + mapLength) * 4);
    for (let i = 0; i < mapLength; i++) {
      readColor(bytes, offset + i * entryBytes, mapDepth, palette, (mapFirst + i) * 4);
    }
    offset = end;
  }
  if (kind === 1 && !palette) throw new Error('colour-mapped TGA has no colour map');

  const pixelBytes = Math.ceil(depth / 8);
  const count = width * height;
  // Pixels in file order first; orientation is fixed afterwards.
  const raw = new Uint8Array(count * pixelBytes);
  if (rle) {
    let written = 0;
    while (written < raw.length) {
      if (offset >= bytes.length) throw new Error('TGA pixel data is truncated');
      const header = bytes[offset++];
      const run = (header & 0x7f) + 1;
      const size = run * pixelBytes;
      if (written + size > raw.length) throw new Error('TGA run overflows the image');
      if (header & 0x80) {
        if (offset + pixelBytes > bytes.length) throw new Error('TGA pixel data is truncated');
        for (let i = 0; i < run; i++)
          raw.set(bytes.subarray(offset, offset + pixelBytes), written + i * pixelBytes);
        offset += pixelBytes;
      } else {
        if (offset + size > bytes.length) throw new Error('TGA pixel data is truncated');
        raw.set(bytes.subarray(offset, offset + size), written);
        offset += size;
      }
      written += size;
    }
  } else {
    if (offset + raw.length > bytes.length) throw new Error('TGA pixel data is truncated');
    raw.set(bytes.subarray(offset, offset + raw.length));
  }

  const data = new Uint8Array(count * 4);
  const bottomUp = (descriptor & 0x20) === 0;
  const rightToLeft = (descriptor & 0x10) !== 0;
  const hasAlpha = (descriptor & 0x0f) > 0 || depth === 32;
  for (let y = 0; y < height; y++) {
    const row = bottomUp ? height - 1 - y : y;
    for (let x = 0; x < width; x++) {
      const column = rightToLeft ? width - 1 - x : x;
      const source = (row * width + column) * pixelBytes;
      const target = (y * width + x) * 4;
      if (kind === 1) {
        const index = pixelBytes === 1 ? raw[source] : raw[source] | (raw[source + 1] << 8);
        data.set(palette!.subarray(index * 4, index * 4 + 4), target);
      } else if (kind === 3) {
        data[target] = data[target + 1] = data[target + 2] = raw[source];
        data[target + 3] = pixelBytes === 2 ? raw[source + 1] : 255;
      } else {
        readColor(raw, source, depth, data, target);
        if (!hasAlpha) data[target + 3] = 255;
      }
    }
  }
  return { width, height, data };
}

/** Writes one BGR(A) or 15/16-bit TGA colour as RGBA. */
function readColor(from: Uint8Array, at: number, depth: number, to: Uint8Array, target: number): void {
  if (depth === 15 || depth === 16) {
    const value = from[at] | (from[at + 1] << 8);
    to[target] = (((value >> 10) & 31) * 255) / 31;
    to[target + 1] = (((value >> 5) & 31) * 255) / 31;
    to[target + 2] = ((value & 31) * 255) / 31;
    // Many writers leave the 16-bit attribute bit clear on opaque images, so it is not read as alpha.
    to[target + 3] = 255;
    return;
  }
  to[target] = from[at + 2];
  to[target + 1] = from[at + 1];
  to[target + 2] = from[at];
  to[target + 3] = depth === 32 ? from[at + 3] : 255;
}
