// The bodies the upload routes (`POST /api/models`, `POST /api/models/:id/versions`) take, checked before the body is
// read: any other type would reach the JSON branch as text and be taken for an upload id.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/api-error.ts';

/** The media types an upload route reads: a form carrying the files, or JSON naming a finished resumable upload. */
export const UPLOAD_CONTENT_TYPES = ['multipart/form-data', 'application/json'] as const;

/** The 415 an upload route answers any other body with. */
export const UPLOAD_TYPES_MESSAGE =
  'unsupported content type: send multipart/form-data (the file) or application/json ({"upload_id": …})';

/**
 * A `preParsing` hook (after the token check, before the body is read) refusing a body of another type with 415.
 * A request with no body passes: the route answers it "No model file provided".
 */
export async function refuseOtherUploadTypes(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const type = request.headers['content-type'];
  const mediaType = type?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === undefined || mediaType === '') {
    if (hasBody(request)) throw new ApiError(415, UPLOAD_TYPES_MESSAGE);
    return;
  }
  if (!(UPLOAD_CONTENT_TYPES as readonly string[]).includes(mediaType))
    throw new ApiError(415, UPLOAD_TYPES_MESSAGE);
}

/** Whether the request announces a body (a length above 0, or a chunked one). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}
