import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from '../http/api-error.ts';
import { receiveForm } from '../http/receive-file.ts';
import { JobName } from '../jobs/job-types.ts';
import { detectModelFormat } from '../pipeline/detect-format.ts';
import { sourceKey } from './lod-keys.ts';
import { toModel } from './model-view.ts';
import {
  CATALOG_ERRORS,
  CATALOG_TAGS,
  MODEL_NOT_FOUND,
  type CatalogApp,
  type CatalogRouteContext,
} from './route-context.ts';
import { catalogEnvelope, CatalogErrorSchema, ModelIdParams, ModelSchema } from './schemas.ts';

/** `POST /` (upload, streamed to disk, queued for conversion) and `POST /:id/reprocess`. */
export function registerUploadRoutes(app: CatalogApp, context: CatalogRouteContext): void {
  const { models, blobs, queue, urlFor, existing } = context;

  app.post(
    '/',
    {
      schema: {
        tags: CATALOG_TAGS,
        summary:
          'Upload a model (multipart field `file`, optional `name`, `description`); converts in the background',
        consumes: ['multipart/form-data'],
        response: { 201: catalogEnvelope(ModelSchema), ...CATALOG_ERRORS, 413: CatalogErrorSchema },
      },
    },
    async (request, reply) => {
      const { file, fields } = await receiveForm(request, {
        fileField: 'file',
        maxBytes: context.maxUploadBytes,
        tmpDir: context.tmpDir,
      });
      if (!file) throw new ApiError(400, 'No model file provided');
      try {
        const detected = await detectModelFormat(file.path, file.filename);
        if (!detected) throw new ApiError(400, 'Unsupported model format');
        const name = (fields.name ?? '').trim() || path.parse(file.filename).name || file.filename;
        const description = fields.description ?? '';
        if (name.length > 255) throw new ApiError(400, 'name must be a string of 1 to 255 characters');
        if (description.length > 10_000)
          throw new ApiError(400, 'description must be at most 10000 characters');
        const id = randomUUID();
        const key = sourceKey(id, file.filename);
        await blobs.putFile(key, file.path);
        const row = await models.create({
          id,
          name,
          description,
          original_filename: file.filename,
          format: detected.format,
          file_size: file.size,
          status: 'pending',
          progress: 0,
          source_key: key,
          source_entry: detected.entry ?? null,
          lods: '[]',
          tags: '[]',
        });
        await queue.enqueue(
          JobName.ConvertModel,
          { model_id: id },
          { subject: id, dedupeKey: `convert:${id}` },
        );
        return reply.code(201).send({ success: true as const, data: toModel(row, urlFor(request)) });
      } finally {
        await fsp.rm(file.path, { force: true });
      }
    },
  );

  app.post(
    '/:id/reprocess',
    {
      schema: {
        tags: CATALOG_TAGS,
        summary: 'Convert the model again from its upload (back to pending)',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(ModelSchema), ...CATALOG_ERRORS, 409: CatalogErrorSchema },
      },
    },
    async (request) => {
      const { id } = request.params;
      const row = await existing(id);
      if (row.status === 'pending' || row.status === 'processing') {
        throw new ApiError(409, 'Model is already being converted');
      }
      const reset = await models.resetForReprocess(id);
      if (!reset) throw new ApiError(404, MODEL_NOT_FOUND);
      await queue.enqueue(
        JobName.ConvertModel,
        { model_id: id },
        { subject: id, dedupeKey: `convert:${id}` },
      );
      return { success: true as const, data: toModel(reset, urlFor(request)) };
    },
  );
}
