// The two ways a request brings a model's next version, for `POST /api/models/:id/versions`: a multipart form
// (one file, or a model with its resources packed into one) or a finished resumable upload named by `upload_id`,
// which makes one version only: a retry of it answers that version.
// The versions routes take this as a function, so they need none of the catalog's upload code.
import fsp from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import type { ModelVersionRow } from '../../db/database.ts';
import { ApiError } from '../../http/api-error.ts';
import type { UploadIntake } from '../../uploads/schemas.ts';
import type { CatalogService } from '../catalog-service.ts';
import { makeOnceFromUpload } from './once-from-upload.ts';
import { prepareBundle } from './upload-bundle.ts';
import { MAX_UPLOAD_FILES } from './upload-limits.ts';
import { VersionMadeAlready } from './version-upload.ts';

/** A version the request made, or found already made from its upload by an earlier copy of it (`replayed`). */
export interface MadeVersion {
  row: ModelVersionRow;
  replayed: boolean;
}

/** Makes a version of model `modelId` from the request's upload, posted by `author` (a token name or null). */
export type VersionIntake = (
  request: FastifyRequest,
  modelId: string,
  author: string | null,
) => Promise<MadeVersion>;

/** Answer to an `upload_id` that already made a version of another model. */
export const UPLOAD_USED_ELSEWHERE = 'This upload already made a version of another model';

/** The app's upload settings, as the catalog's own upload route has them. */
export interface VersionIntakeLimits {
  /** Largest upload in bytes. */
  maxBytes: number;
  /** Folder for uploads while they stream in. */
  tmpDir: string;
}

/** Creates the version intake over the catalog service and the app's uploads. */
export function createVersionIntake(
  catalog: CatalogService,
  intake: UploadIntake,
  options: VersionIntakeLimits,
): VersionIntake {
  return async (request, modelId, author) => {
    if (request.isMultipart()) {
      const { files, fields } = await intake.receiveForm(request, {
        fileField: 'file',
        maxBytes: options.maxBytes,
        tmpDir: options.tmpDir,
        maxFiles: MAX_UPLOAD_FILES,
      });
      try {
        if (files.length === 0) throw new ApiError(400, 'No model file provided');
        const declared = { unit: fields.unit, up: fields.up, author };
        if (files.length === 1)
          return { row: await catalog.addVersion(modelId, { file: files[0], ...declared }), replayed: false };
        const row = await catalog.addVersion(modelId, {
          ...(await prepareBundle(files, options.tmpDir)),
          ...declared,
        });
        return { row, replayed: false };
      } finally {
        await Promise.all(files.map((file) => fsp.rm(file.path, { force: true })));
      }
    }
    const body = request.body as { upload_id?: string; unit?: string; up?: string } | undefined;
    if (!body?.upload_id) throw new ApiError(400, 'No model file provided');
    return versionFromResumable(catalog, intake, request, modelId, {
      ...body,
      upload_id: body.upload_id,
      author,
    });
  };
}

/**
 * A finished resumable upload made into a version, once: a retry (its first answer lost, or a failure after the
 * version was committed) answers the version it made and removes what is left of the upload, as
 * `POST /api/models {upload_id}` answers its model. The upload stays when the catalog refuses it, so the client
 * may correct the fields and try again.
 */
async function versionFromResumable(
  catalog: CatalogService,
  intake: UploadIntake,
  request: FastifyRequest,
  modelId: string,
  body: { upload_id: string; unit?: string; up?: string; author: string | null },
): Promise<MadeVersion> {
  const uploadId = body.upload_id;
  const made = await makeOnceFromUpload(intake, request.log, {
    uploadId,
    madeBefore: () => catalog.versionMadeBy(uploadId),
    make: async (file) => {
      try {
        const row = await catalog.addVersion(modelId, {
          file,
          unit: body.unit,
          up: body.up,
          author: body.author,
          uploadId,
        });
        return { value: row, replayed: false };
      } catch (error) {
        if (error instanceof VersionMadeAlready) return { value: error.row, replayed: true };
        throw error;
      }
    },
  });
  if (made.replayed && made.value.model_id !== modelId) throw new ApiError(409, UPLOAD_USED_ELSEWHERE);
  return { row: made.value, replayed: made.replayed };
}
