import fsp from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../http/api-error.ts';
import { receiveForm } from '../http/receive-file.ts';
import { JobName } from '../jobs/job-types.ts';
import { sniffImageType } from './image-type.ts';
import { toModel } from './model-view.ts';
import {
  CATALOG_ERRORS,
  CATALOG_TAGS,
  MODEL_NOT_FOUND,
  type CatalogApp,
  type CatalogRouteContext,
} from './route-context.ts';
import { CatalogErrorSchema, CatalogMessageSchema, ModelIdParams, ModelSchema } from './schemas.ts';
import { thumbnailKey } from './thumbnails.ts';

/** Largest uploaded thumbnail (model-catalog.md: 2 MB). */
export const MAX_THUMBNAIL_BYTES = 2 * 1024 * 1024;

/** Routes 9 and 10: `POST /:id/thumbnail` and `POST /:id/regenerate-thumbnail`. */
export function registerThumbnailRoutes(app: CatalogApp, context: CatalogRouteContext): void {
  const { models, blobs, queue, urlFor, existing } = context;

  app.post(
    '/:id/thumbnail',
    {
      schema: {
        tags: CATALOG_TAGS,
        summary: 'Upload a PNG or JPEG thumbnail (multipart field `thumbnail`, at most 2 MB)',
        consumes: ['multipart/form-data'],
        params: ModelIdParams,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: ModelSchema, thumbnail_url: Type.String() }),
          ...CATALOG_ERRORS,
          413: CatalogErrorSchema,
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      await existing(id);
      const { file } = await receiveForm(request, {
        fileField: 'thumbnail',
        maxBytes: MAX_THUMBNAIL_BYTES,
        tmpDir: context.tmpDir,
      });
      if (!file) throw new ApiError(400, 'No thumbnail file provided');
      try {
        const bytes = await fsp.readFile(file.path);
        const type = sniffImageType(bytes.subarray(0, 16));
        if (!type) throw new ApiError(400, 'Only PNG and JPEG images are allowed');
        const key = thumbnailKey(id, bytes, type);
        await blobs.putBytes(key, bytes);
        const replaced = await models.setThumbnail(id, key);
        if (!replaced) {
          await blobs.delete(key);
          throw new ApiError(404, MODEL_NOT_FOUND);
        }
        if (replaced.previous && replaced.previous !== key) await blobs.delete(replaced.previous);
        const model = toModel(replaced.row, urlFor(request));
        return { success: true as const, data: model, thumbnail_url: model.thumbnail_url ?? '' };
      } finally {
        await fsp.rm(file.path, { force: true });
      }
    },
  );

  app.post(
    '/:id/regenerate-thumbnail',
    {
      schema: {
        tags: CATALOG_TAGS,
        summary: 'Queue a job that renders the thumbnail again (with the current material bindings)',
        params: ModelIdParams,
        response: { 200: CatalogMessageSchema, ...CATALOG_ERRORS },
      },
    },
    async (request) => {
      const row = await existing(request.params.id);
      const model = toModel(row, urlFor(request));
      if (!model.model_url) throw new ApiError(400, 'Model not ready for thumbnail generation');
      await queue.enqueue(
        JobName.RenderThumbnail,
        { model_id: row.id, model_url: model.model_url },
        { subject: row.id, dedupeKey: `thumbnail:${row.id}` },
      );
      return { success: true as const, message: 'Thumbnail regeneration job queued' };
    },
  );
}
