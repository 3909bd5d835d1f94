import sharp from 'sharp';
import { ApiError } from '../../http/api-error.ts';
import { declaredImageSize, sniffImageType, type ThumbnailType } from './image-type.ts';

/** Largest width or height of an uploaded thumbnail; it is shown at a few hundred pixels. */
export const MAX_THUMBNAIL_SIDE = 4096;

const CORRUPT = 'The thumbnail image is corrupt or truncated';

/**
 * Checks an uploaded thumbnail before it is stored: PNG or JPEG by its bytes, dimensions within
 * {@link MAX_THUMBNAIL_SIDE} read from its header, then decoded in full so a truncated or corrupt image is
 * refused too. Returns its type; throws a 400 naming what is wrong.
 */
export async function checkThumbnailImage(bytes: Uint8Array): Promise<ThumbnailType> {
  const type = sniffImageType(bytes.subarray(0, 16));
  if (!type) throw new ApiError(400, 'Only PNG and JPEG images are allowed');
  // The header is read first, so a huge declared size is refused before any pixel is decoded.
  const size = declaredImageSize(bytes, type);
  if (!size || size.width === 0 || size.height === 0) throw new ApiError(400, CORRUPT);
  if (size.width > MAX_THUMBNAIL_SIDE || size.height > MAX_THUMBNAIL_SIDE) {
    throw new ApiError(
      400,
      `The thumbnail is ${size.width} × ${size.height} pixels; at most ${MAX_THUMBNAIL_SIDE} × ${MAX_THUMBNAIL_SIDE} are allowed`,
    );
  }
  try {
    await sharp(bytes, { failOn: 'truncated', limitInputPixels: MAX_THUMBNAIL_SIDE ** 2 }).stats();
  } catch {
    throw new ApiError(400, CORRUPT);
  }
  return type;
}
