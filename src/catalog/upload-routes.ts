import fsp from 'node:fs/promises';
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ModelRow } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { CATALOG_ERRORS, CATALOG_TAGS, type CatalogApp, type CatalogRouteContext } from './route-context.ts';
import {
  CreateModelFromUploadBody,
  ModelIdParams,
  ModelSchema,
  UploadModelForm,
  toModel,
  UploadModelHeaders,
} from './schemas.ts';
import { catalogEnvelope, CatalogErrorSchema } from '../http/catalog-family.ts';
import { prepareBundle } from './upload-bundle.ts';
import {
  formFingerprint,
  IDEMPOTENCY_KEY_REUSED,
  idempotencyKeyOf,
  ModelMadeAlready,
  REPLAYED_HEADER,
  type RequestKey,
} from './request-keys.ts';
import type { TakenUpload } from '../uploads/schemas.ts';
import { MAX_UPLOAD_FILES } from './upload-limits.ts';

/** A model the request made, or found already made by an earlier copy of it (`replayed`). */
interface MadeModel {
  row: ModelRow;
  replayed: boolean;
}

/**
 * Runs `make`; when a concurrent copy of the keyed request made the model first, that model is the answer, unless
 * the copy carried a different request under the same idempotency key (422, as the IETF draft says).
 */
async function madeOnce(key: RequestKey | undefined, make: () => Promise<ModelRow>): Promise<MadeModel> {
  try {
    return { row: await make(), replayed: false };
  } catch (error) {
    if (!(error instanceof ModelMadeAlready)) throw error;
    return { row: checkedReplay(key, error.row), replayed: true };
  }
}

/** The earlier model as the answer to a retry, after checking the retry is the same request. */
function checkedReplay(key: RequestKey | undefined, row: ModelRow): ModelRow {
  if (key?.kind === 'idempotency' && row.request_fingerprint !== key.fingerprint)
    throw new ApiError(422, IDEMPOTENCY_KEY_REUSED);
  return row;
}

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
          422: CatalogErrorSchema,
          507: CatalogErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { row, replayed } = request.isMultipart()
        ? await uploadFromForm(request)
        : await uploadFromResumable(
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

  /**
   * The multipart upload: the files streamed to temporary files, several packed into one (see `prepareBundle`),
   * then handed to the catalog service. With an `Idempotency-Key`, a retry within the window answers the model
   * the key already made, and a different request under the same key is refused.
   */
  const uploadFromForm = async (request: FastifyRequest): Promise<MadeModel> => {
    const idempotencyKey = idempotencyKeyOf(request);
    const { files, fields } = await context.intake.receiveForm(request, {
      fileField: 'file',
      maxBytes: context.maxUploadBytes,
      tmpDir: context.tmpDir,
      maxFiles: MAX_UPLOAD_FILES,
    });
    try {
      if (files.length === 0) throw new ApiError(400, 'No model file provided');
      const requestKey: RequestKey | undefined =
        idempotencyKey === undefined
          ? undefined
          : {
              kind: 'idempotency',
              key: idempotencyKey,
              fingerprint: formFingerprint(files, fields),
              since: new Date(Date.now() - context.idempotencyWindowMs).toISOString(),
            };
      const earlier = requestKey && (await catalog.madeBy(requestKey));
      if (earlier) return { row: checkedReplay(requestKey, earlier), replayed: true };
      const declared = {
        name: fields.name,
        description: fields.description,
        unit: fields.unit,
        up: fields.up,
        requestKey,
      };
      return await madeOnce(requestKey, async () => {
        if (files.length === 1) return catalog.upload({ file: files[0], ...declared });
        return catalog.upload({ ...(await prepareBundle(files, context.tmpDir)), ...declared });
      });
    } finally {
      // The catalog removed the file it was handed; the others (a packed upload's, a replay's) are still here.
      await Promise.all(files.map((file) => fsp.rm(file.path, { force: true })));
    }
  };

  /**
   * A finished resumable upload handed to the same catalog service; it is removed once it became a model, and
   * left in place when the catalog refuses it, so the client may correct the fields and try again. Its
   * `upload_id` makes one model only: a retry (the first answer lost, or a failure after the model was
   * committed) answers that model and removes what is left of the upload.
   */
  const uploadFromResumable = async (
    request: FastifyRequest,
    body: Static<typeof CreateModelFromUploadBody> | undefined,
  ): Promise<MadeModel> => {
    if (!body) throw new ApiError(400, 'No model file provided');
    const uploadId = body.upload_id;
    const requestKey: RequestKey = { kind: 'upload', uploadId };
    const discardLeftover = () =>
      context.intake
        .discard(uploadId)
        .catch((error: unknown) =>
          request.log.warn({ err: error, upload_id: uploadId }, 'could not remove a used upload'),
        );
    const earlier = await catalog.madeBy(requestKey);
    if (earlier) {
      await discardLeftover();
      return { row: earlier, replayed: true };
    }
    let taken: TakenUpload;
    try {
      taken = await context.intake.take(uploadId);
    } catch (error) {
      // Gone or held because a concurrent copy of this request made the model meanwhile: that model is the answer.
      const made = error instanceof ApiError ? await catalog.madeBy(requestKey) : undefined;
      if (made) return { row: made, replayed: true };
      throw error;
    }
    let made: MadeModel;
    try {
      made = await madeOnce(requestKey, () =>
        catalog.upload({
          file: taken.file,
          name: body.name,
          description: body.description,
          unit: body.unit,
          up: body.up,
          requestKey,
        }),
      );
    } catch (error) {
      // The client hears why the catalog refused the file, not a failure to put the upload back.
      await taken
        .giveBack()
        .catch((undo: unknown) =>
          request.log.warn({ err: undo, upload_id: uploadId }, 'could not put a refused upload back'),
        );
      throw error;
    }
    // The model is committed: a failure to remove the upload must not turn its answer into an error (the client
    // would retry, and the retry removes it again), and the expiry sweep removes it at last.
    await taken
      .consume()
      .catch((error: unknown) =>
        request.log.warn({ err: error, upload_id: uploadId }, 'could not remove a used upload'),
      );
    return made;
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
