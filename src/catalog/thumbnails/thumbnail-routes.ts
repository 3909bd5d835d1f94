import fsp from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../http/api-error.ts';
import { CATALOG_ERRORS, CATALOG_TAGS, type CatalogApp, type CatalogRouteContext } from '../route-context.ts';
import { MODEL_NOT_FOUND, ModelIdParams, ModelSchema, toModel } from '../schemas.ts';
import { UploadThumbnailForm } from '../intake/upload-schemas.ts';
import { CatalogErrorSchema, CatalogMessageSchema } from '../../http/catalog-family.ts';

/** Largest uploaded thumbnail: 2 MB, ample for a picture shown at 512 px. */
export const MAX_THUMBNAIL_BYTES = 2 * 1024 * 1024;

/** Routes 9 and 10: `POST /:id/thumbnail` and `POST /:id/regenerate-thumbnail`. */
export function registerThumbnailRoutes(app: CatalogApp, context: CatalogRouteContext): void {
  const { catalog, urlFor, existing } = context;

  app.post(
    '/:id/thumbnail',
    {
      schema: {
        operationId: 'uploadThumbnail',
        tags: CATALOG_TAGS,
        summary: 'Upload a PNG or JPEG thumbnail (multipart field `thumbnail`, at most 2 MB)',
        consumes: ['multipart/form-data'],
        multipartBody: UploadThumbnailForm,
        params: ModelIdParams,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: ModelSchema, thumbnail_url: Type.String() }),
          ...CATALOG_ERRORS,
          413: CatalogErrorSchema,
          507: CatalogErrorSchema,
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      await existing(id);
      const { file } = await context.intake.receiveForm(request, {
        fileField: 'thumbnail',
        maxBytes: MAX_THUMBNAIL_BYTES,
        tmpDir: context.tmpDir,
      });
      if (!file) throw new ApiError(400, 'No thumbnail file provided');
      try {
        const row = await catalog.uploadThumbnail(id, await fsp.readFile(file.path));
        if (!row) throw new ApiError(404, MODEL_NOT_FOUND);
        const model = toModel(row, urlFor(request));
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
        operationId: 'regenerateThumbnail',
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
      await catalog.queueThumbnailRender(row.id);
      return { success: true as const, message: 'Thumbnail regeneration job queued' };
    },
  );
}
