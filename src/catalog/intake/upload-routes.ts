import type { Static } from '@sinclair/typebox';
import { catalogEnvelope, CatalogErrorSchema } from '../../http/catalog-family.ts';
import { modelFromForm, modelFromResumable } from './model-from-upload.ts';
import { REPLAYED_HEADER } from './request-keys.ts';
import { refuseOtherUploadTypes } from './upload-content-types.ts';
import { CATALOG_ERRORS, CATALOG_TAGS, type CatalogApp, type CatalogRouteContext } from '../route-context.ts';
import { ModelIdParams, ModelSchema, toModel } from '../schemas.ts';
import { CreateModelFromUploadBody, UploadModelForm, UploadModelHeaders } from './upload-schemas.ts';

/** `POST /` (a multipart upload or a finished resumable one, queued for conversion) and `POST /:id/reprocess`. */
export function registerUploadRoutes(app: CatalogApp, context: CatalogRouteContext): void {
  const { catalog, urlFor } = context;

  app.post(
    '/',
    {
      preParsing: refuseOtherUploadTypes,
      schema: {
        operationId: 'uploadModel',
        tags: CATALOG_TAGS,
        summary:
          'Upload a model (multipart field `file`, optional `name`, `description`, and for files without units ' +
          'or axes `unit` (mm, cm, m, in, ft) and `up` (y, z)), or make a finished resumable upload ' +
          '(`/api/uploads`, tus) a model with a JSON body naming its `upload_id`; converts in the background. ' +
          'A retry answers the model the first copy made (200, `Idempotent-Replayed: true`): by its `upload_id`, ' +
          'or for a multipart upload by its `Idempotency-Key` header (same token, within IDEMPOTENCY_KEY_HOURS; ' +
          'the same key with a different request is 422)',
        // Only the JSON body is validated here: the multipart one is streamed and judged by the route itself.
        body: { content: { 'application/json': { schema: CreateModelFromUploadBody } } },
        multipartBody: UploadModelForm,
        headers: UploadModelHeaders,
        response: {
          200: catalogEnvelope(ModelSchema),
          201: catalogEnvelope(ModelSchema),
          ...CATALOG_ERRORS,
          409: CatalogErrorSchema,
          413: CatalogErrorSchema,
          415: CatalogErrorSchema,
          422: CatalogErrorSchema,
          507: CatalogErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { row, replayed } = request.isMultipart()
        ? await modelFromForm(context, request)
        : await modelFromResumable(
            context,
            request,
            request.body as Static<typeof CreateModelFromUploadBody> | undefined,
          );
      const data = toModel(row, urlFor(request));
      // A retry answers the model its first copy made, as it is now: 200, since nothing was created this time.
      if (replayed)
        return reply
          .code(200)
          .header(REPLAYED_HEADER, 'true')
          .send({ success: true as const, data });
      return reply.code(201).send({ success: true as const, data });
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
