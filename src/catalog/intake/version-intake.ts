// The two ways a request brings a model's next version, for `POST /api/models/:id/versions`: a multipart form
// (one file, or a model with its resources packed into one) or a finished resumable upload named by `upload_id`.
// The versions routes take this as a function, so they need none of the catalog's upload code.
import fsp from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import type { ModelVersionRow } from '../../db/database.ts';
import { ApiError } from '../../http/api-error.ts';
import type { UploadIntake } from '../../uploads/schemas.ts';
import type { CatalogService } from '../catalog-service.ts';
import { prepareBundle } from './upload-bundle.ts';
import { MAX_UPLOAD_FILES } from './upload-limits.ts';

/** Makes a version of model `modelId` from the request's upload, posted by `author` (a token name or null). */
export type VersionIntake = (
  request: FastifyRequest,
  modelId: string,
  author: string | null,
) => Promise<ModelVersionRow>;

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
        if (files.length === 1) return await catalog.addVersion(modelId, { file: files[0], ...declared });
        return await catalog.addVersion(modelId, {
          ...(await prepareBundle(files, options.tmpDir)),
          ...declared,
        });
      } finally {
        await Promise.all(files.map((file) => fsp.rm(file.path, { force: true })));
      }
    }
    const body = request.body as { upload_id?: string; unit?: string; up?: string } | undefined;
    if (!body?.upload_id) throw new ApiError(400, 'No model file provided');
    const taken = await intake.take(body.upload_id);
    let row: ModelVersionRow;
    try {
      row = await catalog.addVersion(modelId, { file: taken.file, unit: body.unit, up: body.up, author });
    } catch (error) {
      // Refused (a bad field, an unknown model): the upload stays, so the client may correct and retry.
      await taken
        .giveBack()
        .catch((undo: unknown) =>
          request.log.warn({ err: undo, upload_id: body.upload_id }, 'could not put a refused upload back'),
        );
      throw error;
    }
    await taken
      .consume()
      .catch((error: unknown) =>
        request.log.warn({ err: error, upload_id: body.upload_id }, 'could not remove a used upload'),
      );
    return row;
  };
}
