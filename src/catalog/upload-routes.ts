import fsp from 'node:fs/promises';
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ModelRow } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { receiveForm } from '../http/receive-file.ts';
import { toModel } from './model-rows.ts';
import { CATALOG_ERRORS, CATALOG_TAGS, type CatalogApp, type CatalogRouteContext } from './route-context.ts';
import {
  catalogEnvelope,
  CatalogErrorSchema,
  CreateModelFromUploadBody,
  ModelIdParams,
  ModelSchema,
  UploadModelForm,
} from './schemas.ts';
import { prepareBundle } from './upload-bundle.ts';
import { MAX_UPLOAD_FILES } from './upload-limits.ts';

/** `POST /` (a multipart upload or a finished resumable one, queued for conversion) and `POST /:id/reprocess`. */
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
          'or axes `unit` (mm, cm, m, in, ft) and `up` (y, z)), or make a finished resumable upload ' +
          '(`/api/uploads`, tus) a model with a JSON body naming its `upload_id`; converts in the background',
        // Only the JSON body is validated here: the multipart one is streamed and judged by the route itself.
        body: { content: { 'application/json': { schema: CreateModelFromUploadBody } } },
        multipartBody: UploadModelForm,
        response: {
          201: catalogEnvelope(ModelSchema),
          ...CATALOG_ERRORS,
          409: CatalogErrorSchema,
          413: CatalogErrorSchema,
          507: CatalogErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const row = request.isMultipart()
        ? await uploadFromForm(request)
        : await uploadFromResumable(
            request,
            request.body as Static<typeof CreateModelFromUploadBody> | undefined,
          );
      return reply.code(201).send({ success: true as const, data: toModel(row, urlFor(request)) });
    },
  );

  /**
   * The multipart upload: the files streamed to temporary files, several packed into one (see `prepareBundle`),
   * then handed to the catalog service.
   */
  const uploadFromForm = async (request: FastifyRequest) => {
    const { files, fields } = await receiveForm(request, {
      fileField: 'file',
      maxBytes: context.maxUploadBytes,
      tmpDir: context.tmpDir,
      maxFiles: MAX_UPLOAD_FILES,
    });
    if (files.length === 0) throw new ApiError(400, 'No model file provided');
    try {
      const declared = {
        name: fields.name,
        description: fields.description,
        unit: fields.unit,
        up: fields.up,
      };
      if (files.length === 1) return await catalog.upload({ file: files[0], ...declared });
      return await catalog.upload({ ...(await prepareBundle(files, context.tmpDir)), ...declared });
    } finally {
      // The catalog removed the file it was handed; the received ones of a packed upload are still here.
      if (files.length > 1) await Promise.all(files.map((file) => fsp.rm(file.path, { force: true })));
    }
  };

  /**
   * A finished resumable upload handed to the same catalog service; it is removed once it became a model, and
   * left in place when the catalog refuses it, so the client may correct the fields and try again.
   */
  const uploadFromResumable = async (
    request: FastifyRequest,
    body: Static<typeof CreateModelFromUploadBody> | undefined,
  ) => {
    if (!body) throw new ApiError(400, 'No model file provided');
    const taken = await context.uploads.take(body.upload_id);
    let row: ModelRow;
    try {
      row = await catalog.upload({
        file: taken.file,
        name: body.name,
        description: body.description,
        unit: body.unit,
        up: body.up,
      });
    } catch (error) {
      // The client hears why the catalog refused the file, not a failure to put the upload back.
      await taken
        .giveBack()
        .catch((undo: unknown) =>
          request.log.warn({ err: undo, upload_id: body.upload_id }, 'could not put a refused upload back'),
        );
      throw error;
    }
    await taken.consume();
    return row;
  };

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
