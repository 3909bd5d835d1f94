// A finished resumable upload made into one thing (a model, a version) once: a retry of the request, its first
// answer lost or a failure after the commit, answers what the first copy made and removes what is left of the
// upload. Shared by `POST /api/models {upload_id}` and `POST /api/models/:id/versions {upload_id}`.
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../http/api-error.ts';
import type { FinishedUploads, UploadedFile } from '../../uploads/schemas.ts';

/** What one upload makes, and how to find what an earlier copy of the request made from it. */
export interface MadeFromUpload<T> {
  /** The finished resumable upload. */
  uploadId: string;
  /** What an earlier copy of the request made from this upload, if anything. */
  madeBefore(): Promise<T | undefined>;
  /** Makes the thing from the upload's file; it may answer `replayed` itself when it finds a copy won the race. */
  make(file: UploadedFile): Promise<{ value: T; replayed: boolean }>;
}

/**
 * Makes `spec`'s thing from its upload once. The upload is removed once made (a failure to remove it is logged,
 * not answered: the expiry sweep removes it at last) and put back when `make` throws, so the client may correct
 * the fields and try again.
 */
export async function makeOnceFromUpload<T>(
  uploads: FinishedUploads,
  log: FastifyBaseLogger,
  spec: MadeFromUpload<T>,
): Promise<{ value: T; replayed: boolean }> {
  const { uploadId } = spec;
  const warn = (message: string) => (error: unknown) =>
    log.warn({ err: error, upload_id: uploadId }, message);
  const earlier = await spec.madeBefore();
  if (earlier) {
    await uploads.discard(uploadId).catch(warn('could not remove a used upload'));
    return { value: earlier, replayed: true };
  }
  let taken;
  try {
    taken = await uploads.take(uploadId);
  } catch (error) {
    // Gone or held because a concurrent copy of this request made it meanwhile: that is the answer.
    const made = error instanceof ApiError ? await spec.madeBefore() : undefined;
    if (made) return { value: made, replayed: true };
    throw error;
  }
  let made;
  try {
    made = await spec.make(taken.file);
  } catch (error) {
    // The client hears why it was refused, not a failure to put the upload back.
    await taken.giveBack().catch(warn('could not put a refused upload back'));
    throw error;
  }
  await taken.consume().catch(warn('could not remove a used upload'));
  return made;
}
