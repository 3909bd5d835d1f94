// The answer to a write that meets a full disk: a 507 the client can act on, not a 500.
import { ApiError } from '../http/api-error.ts';
import { isDiskFull } from '../storage/disk-full.ts';

/** Answer to an upload or thumbnail that meets a full disk. */
export const STORAGE_FULL = 'Not enough storage space left; delete models or free space and try again';

/** The error to throw for a failed write: a 507 with {@link STORAGE_FULL} when the disk is full, else the error. */
export function storageFullOr(error: unknown): unknown {
  return isDiskFull(error) ? new ApiError(507, STORAGE_FULL) : error;
}
