import { ApiError } from '../http/api-error.ts';
import { receiveForm } from '../http/receive-file.ts';
import { toModel } from './model-rows.ts';
import { CATALOG_ERRORS, CATALOG_TAGS, type CatalogApp, type CatalogRouteContext } from './route-context.ts';
import {
  catalogEnvelope,
  CatalogErrorSchema,
  ModelIdParams,
  ModelSchema,
  UploadModelForm,
} from './schemas.ts';

/** `POST /` (upload, streamed to disk, queued for conversion) and `POST /:id/reprocess`. */
export function registerUploadRoutes(app: CatalogApp, context: CatalogRouteContext): void {
  const { catalog, urlFor } = context;

  app.post(
    '/',
    {
      schema: {
        operationId: 'uploadModel',
        tags: CATALOG_TAGS,
        summary:
          'Upload a model (multipart field `file`, optional `name`, `description`, and for files without units ' +
          'or axes `unit` (mm, cm, m, in, ft) and `up` (y, z)); converts in the background',
        consumes: ['multipart/form-data'],
        multipartBody: UploadModelForm,
        response: {
          201: catalogEnvelope(ModelSchema),
          ...CATALOG_ERRORS,
          413: CatalogErrorSchema,
          507: CatalogErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { file, fields } = await receiveForm(request, {
        fileField: 'file',
        maxBytes: context.maxUploadBytes,
        tmpDir: context.tmpDir,
      });
      if (!file) throw new ApiError(400, 'No model file provided');
      const row = await catalog.upload({
        file,
        name: fields.name,
        description: fields.description,
        unit: fields.unit,
        up: fields.up,
      });
      return reply.code(201).send({ success: true as const, data: toModel(row, urlFor(request)) });
    },
  );

  app.post(
    '/:id/reprocess',
    {
      schema: {
        operationId: 'reprocessModel',
        tags: CATALOG_TAGS,
        summary: 'Convert the model again from its upload (back to pending)',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(ModelSchema), ...CATALOG_ERRORS, 409: CatalogErrorSchema },
      },
    },
    async (request) => {
      const row = await catalog.reprocess(request.params.id);
      return { success: true as const, data: toModel(row, urlFor(request)) };
    },
  );
}
