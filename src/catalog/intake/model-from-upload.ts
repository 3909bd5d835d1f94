// The two ways an upload becomes a model, for `POST /api/models`: a multipart form streamed to temporary files, or
// a finished resumable upload; each made once per request key, a retry answering the model its first copy made.
import fsp from 'node:fs/promises';
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ModelRow } from '../../db/database.ts';
import { ApiError } from '../../http/api-error.ts';
import {
  formFingerprint,
  IDEMPOTENCY_KEY_REUSED,
  idempotencyKeyOf,
  ModelMadeAlready,
  type RequestKey,
} from './request-keys.ts';
import type { CatalogRouteContext } from '../route-context.ts';
import type { CreateModelFromUploadBody } from './upload-schemas.ts';
import { makeOnceFromUpload } from './once-from-upload.ts';
import { prepareBundle } from './upload-bundle.ts';
import { MAX_UPLOAD_FILES } from './upload-limits.ts';

/** A model the request made, or found already made by an earlier copy of it (`replayed`). */
export interface MadeModel {
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

/**
 * The multipart upload: the files streamed to temporary files, several packed into one (see `prepareBundle`),
 * then handed to the catalog service. With an `Idempotency-Key`, a retry within the window answers the model
 * the key already made, and a different request under the same key is refused.
 */
export async function modelFromForm(
  context: CatalogRouteContext,
  request: FastifyRequest,
): Promise<MadeModel> {
  const { catalog } = context;
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
}

/**
 * A finished resumable upload handed to the same catalog service; it is removed once it became a model, and
 * left in place when the catalog refuses it, so the client may correct the fields and try again. Its
 * `upload_id` makes one model only: a retry (the first answer lost, or a failure after the model was
 * committed) answers that model and removes what is left of the upload.
 */
export async function modelFromResumable(
  context: CatalogRouteContext,
  request: FastifyRequest,
  body: Static<typeof CreateModelFromUploadBody> | undefined,
): Promise<MadeModel> {
  const { catalog } = context;
  if (!body) throw new ApiError(400, 'No model file provided');
  const requestKey: RequestKey = { kind: 'upload', uploadId: body.upload_id };
  const made = await makeOnceFromUpload(context.intake, request.log, {
    uploadId: body.upload_id,
    madeBefore: () => catalog.madeBy(requestKey),
    make: async (file) => {
      const { row, replayed } = await madeOnce(requestKey, () =>
        catalog.upload({
          file,
          name: body.name,
          description: body.description,
          unit: body.unit,
          up: body.up,
          requestKey,
        }),
      );
      return { value: row, replayed };
    },
  });
  return { row: made.value, replayed: made.replayed };
}
