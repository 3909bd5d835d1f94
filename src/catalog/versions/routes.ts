import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ModelRepository } from '../repository.ts';
import { MODEL_NOT_FOUND, ModelIdParams, ModelSchema, toModel } from '../schemas.ts';
import type { ModelRow, ModelVersionRow } from '../../db/database.ts';
import type { EventPublisher } from '../../events/event-publisher.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { ApiError } from '../../http/api-error.ts';
import { installApiFamily } from '../../http/api-family.ts';
import { grantOf } from '../../http/auth/request-scope.ts';
import type { TokenChecker } from '../../http/auth/token-checker.ts';
import { catalogEnvelope, CatalogErrorSchema, CATALOG_FAMILY } from '../../http/catalog-family.ts';
import type { UrlFor } from '../../http/files/request-file-urls.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { diffParts } from '../../part-diff/diff-parts.ts';
import type { VersionIntake } from '../intake/version-intake.ts';
import { REPLAYED_HEADER } from '../intake/request-keys.ts';
import type { VersionRepository } from './repository.ts';
import {
  CreateVersionFromUploadBody,
  DiffParams,
  PartDiffSchema,
  toVersion,
  VersionParams,
  VersionSchema,
} from './schemas.ts';
import { removeVersionFiles } from './version-files.ts';
import { refuseOtherUploadTypes } from '../intake/upload-content-types.ts';

/** What the version routes need from the app. */
export interface VersionRoutesOptions {
  versions: VersionRepository;
  models: ModelRepository;
  blobs: BlobStore;
  /** Where a version's conversion is queued; deleting the version cancels it there. */
  queue: JobQueue;
  events: EventPublisher;
  checkToken: TokenChecker;
  /** Makes a version from the request's upload (the catalog's intake: a multipart form or a tus `upload_id`). */
  newVersion: VersionIntake;
  /** The name of a scoped token, the author of what it posts. */
  tokenName(tokenId: string): Promise<string | null>;
  /** Resolves blob keys to the signed URLs this request's client should use. */
  urlFor(request: FastifyRequest): UrlFor;
}

/** The answer for an unknown version of a known model. */
export const VERSION_NOT_FOUND = 'Version not found';
/** The answer to deleting the version the model serves. */
export const CURRENT_VERSION =
  'The current version cannot be deleted; restore another version first, or delete the model';
/** The answer to converting again a version that has not failed. */
export const NOT_FAILED = 'Only a failed version can be converted again';
/** The answer to converting again the version the model serves, which is the model's own conversion. */
export const CURRENT_RECONVERT =
  "The current version is the model's own conversion; reprocess the model (POST /api/models/:id/reprocess)";
/** The answer to a restore while the model's own conversion (an upload's, a reprocess) is under way. */
export const CONVERTING = 'The model is being converted; restore a version when its conversion ends';
/** The answer to restoring a version that has not converted. */
export const NOT_RESTORABLE = 'Only a completed version can be restored';

const TAGS = ['versions'];
const ERRORS = { 400: CatalogErrorSchema, 401: CatalogErrorSchema, 404: CatalogErrorSchema };

/** The versions of a model (`/api/models/:id/versions…`): post, list, read, restore, reprocess, delete and diff. */
export const versionRoutes: FastifyPluginAsync<VersionRoutesOptions> = async (fastify, options) => {
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    ...CATALOG_FAMILY,
    // Unknown paths under the prefix answer the catalog's own 404, set where the catalog is mounted.
    notFoundMessage: undefined,
  });
  await fastify.register(multipart, { throwFileSizeLimit: false });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { versions, models, blobs, events, urlFor } = options;

  const existing = async (id: string): Promise<ModelRow> => {
    const row = await models.get(id);
    if (!row) throw new ApiError(404, MODEL_NOT_FOUND);
    return row;
  };
  const existingVersion = async (id: string, n: string): Promise<ModelVersionRow> => {
    const row = await versions.get(id, Number(n));
    if (!row) throw new ApiError(404, VERSION_NOT_FOUND);
    return row;
  };

  app.post(
    '/:id/versions',
    {
      preParsing: refuseOtherUploadTypes,
      schema: {
        operationId: 'createModelVersion',
        tags: TAGS,
        summary:
          'Upload the next version of a model (multipart `file` like an upload, optional `unit` and `up`; or a ' +
          'JSON body naming the `upload_id` of a finished resumable upload); it converts beside the current ' +
          'version, which the model serves until the new one completes and becomes current. An `upload_id` makes ' +
          'one version: a retry answers it, 200 with `Idempotent-Replayed: true`',
        params: ModelIdParams,
        body: { content: { 'application/json': { schema: CreateVersionFromUploadBody } } },
        response: {
          200: catalogEnvelope(Type.Object({ version: VersionSchema })),
          202: catalogEnvelope(Type.Object({ version: VersionSchema })),
          ...ERRORS,
          409: CatalogErrorSchema,
          413: CatalogErrorSchema,
          415: CatalogErrorSchema,
          507: CatalogErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const model = await existing(id);
      const grant = grantOf(request);
      const author = grant === undefined ? null : await options.tokenName(grant);
      const { row, replayed } = await options.newVersion(request, id, author);
      const version = toVersion(row, model.current_version, urlFor(request));
      // A retry of an `upload_id` request answers the version its first copy made, as the model upload does.
      if (replayed)
        return reply
          .code(200)
          .header(REPLAYED_HEADER, 'true')
          .send({ success: true as const, data: { version } });
      return reply.code(202).send({ success: true as const, data: { version } });
    },
  );

  app.get(
    '/:id/versions',
    {
      schema: {
        operationId: 'listModelVersions',
        tags: TAGS,
        summary: 'Every version of a model, newest first, the current one marked',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Array(VersionSchema)), ...ERRORS },
      },
    },
    async (request) => {
      const model = await existing(request.params.id);
      const toWire = urlFor(request);
      const rows = await versions.list(model.id);
      return {
        success: true as const,
        data: rows.map((row) => toVersion(row, model.current_version, toWire)),
      };
    },
  );

  app.get(
    '/:id/versions/:n',
    {
      schema: {
        operationId: 'getModelVersion',
        tags: TAGS,
        summary: 'One version of a model',
        params: VersionParams,
        response: { 200: catalogEnvelope(VersionSchema), ...ERRORS },
      },
    },
    async (request) => {
      const model = await existing(request.params.id);
      const row = await existingVersion(model.id, request.params.n);
      return { success: true as const, data: toVersion(row, model.current_version, urlFor(request)) };
    },
  );

  app.post(
    '/:id/versions/:n/restore',
    {
      schema: {
        operationId: 'restoreModelVersion',
        tags: TAGS,
        summary:
          "Make a completed version the model's current one again: its levels, tileset, parts and thumbnail are " +
          'what the model serves from now on (a thumbnail a person uploaded stays)',
        params: VersionParams,
        response: { 200: catalogEnvelope(ModelSchema), ...ERRORS, 409: CatalogErrorSchema },
      },
    },
    async (request) => {
      const { id } = request.params;
      await existing(id);
      const row = await existingVersion(id, request.params.n);
      const thumbnail = await versions.makeCurrent(id, row.number);
      if (thumbnail === 'converting') throw new ApiError(409, CONVERTING);
      if (!thumbnail) throw new ApiError(409, NOT_RESTORABLE);
      // The model now shows the restored version's picture; one that no version keeps is nobody's any more.
      if (thumbnail.unused) await blobs.delete(thumbnail.unused);
      const model = await existing(id);
      if (thumbnail.changed) await events.publish('thumbnail.updated', { model_id: id });
      await events.publish('model.updated', {
        model_id: model.id,
        name: model.name,
        status: 'completed',
        progress: model.progress,
        error: model.error,
      });
      return { success: true as const, data: toModel(model, urlFor(request)) };
    },
  );

  app.post(
    '/:id/versions/:n/reprocess',
    {
      schema: {
        operationId: 'reprocessModelVersion',
        tags: TAGS,
        summary:
          'Convert a failed version again from the file it was posted with (no new upload, same number); it ' +
          'converts beside the current version and becomes current when it completes, as a posted version does',
        params: VersionParams,
        response: {
          202: catalogEnvelope(Type.Object({ version: VersionSchema })),
          ...ERRORS,
          409: CatalogErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await existing(id);
      const outcome = await versions.requeueFailed(id, Number(request.params.n), options.queue);
      if (!outcome) throw new ApiError(404, VERSION_NOT_FOUND);
      if ('refused' in outcome)
        throw new ApiError(409, outcome.refused === 'current' ? CURRENT_RECONVERT : NOT_FAILED);
      await options.queue
        .promote(outcome.jobId)
        .catch((error: unknown) =>
          request.log.warn(
            { model_id: id, version: outcome.queued.number, err: error },
            'could not start the conversion at once; it starts when the queue next looks',
          ),
        );
      const model = await existing(id);
      const version = toVersion(outcome.queued, model.current_version, urlFor(request));
      return reply.code(202).send({ success: true as const, data: { version } });
    },
  );

  app.delete(
    '/:id/versions/:n',
    {
      schema: {
        operationId: 'deleteModelVersion',
        tags: TAGS,
        summary:
          'Delete a version that is not the current one, with its files and parts; a conversion of it still queued ' +
          'is cancelled',
        params: VersionParams,
        response: { 204: Type.Null(), ...ERRORS, 409: CatalogErrorSchema },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await existing(id);
      const outcome = await versions.delete(id, Number(request.params.n), options.queue);
      if (!outcome) throw new ApiError(404, VERSION_NOT_FOUND);
      if (!('deleted' in outcome)) throw new ApiError(409, CURRENT_VERSION);
      await removeVersionFiles(blobs, outcome.deleted, outcome.thumbnailInUse);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/:id/versions/:a/diff/:b',
    {
      schema: {
        operationId: 'diffModelVersions',
        tags: TAGS,
        summary:
          'What changed from version a to version b, part by part: parts matched by group id, added, removed, ' +
          'changed (with what: geometry, transform, name, properties, material) and unchanged, with counts',
        params: DiffParams,
        response: { 200: catalogEnvelope(PartDiffSchema), ...ERRORS, 409: CatalogErrorSchema },
      },
    },
    async (request) => {
      const { id } = request.params;
      await existing(id);
      const [from, to] = await Promise.all([
        existingVersion(id, request.params.a),
        existingVersion(id, request.params.b),
      ]);
      for (const row of [from, to]) {
        if (row.status !== 'completed')
          throw new ApiError(
            409,
            `Version ${row.number} is ${row.status}; only completed versions have parts`,
          );
      }
      const [fromParts, toParts] = await Promise.all([
        versions.parts(id, from.number),
        versions.parts(id, to.number),
      ]);
      const diff = diffParts(fromParts, toParts);
      return { success: true as const, data: { from: from.number, to: to.number, ...diff } };
    },
  );
};
