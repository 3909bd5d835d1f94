import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import type { TokenCheck } from '../http/auth.ts';
import { receiveForm } from '../http/receive-file.ts';
import { JobName } from '../jobs/job-types.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { MaterialRepository } from '../materials/repository.ts';
import { detectModelFormat } from '../pipeline/detect-format.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { sniffImageType } from './image-type.ts';
import { sourceKey } from './lod-keys.ts';
import { toModel, toPart } from './model-view.ts';
import type { ModelRepository } from './repository.ts';
import {
  catalogEnvelope,
  CatalogErrorSchema,
  CatalogMessageSchema,
  LodLevelParams,
  LodSchema,
  ListModelsQuery,
  ModelIdParams,
  ModelSchema,
  PartSchema,
  PatchModelBody,
} from './schemas.ts';
import { thumbnailKey } from './thumbnails.ts';

/** What the catalog routes need from the app. */
export interface CatalogRoutesOptions {
  models: ModelRepository;
  materials: MaterialRepository;
  blobs: BlobStore;
  queue: JobQueue;
  checkToken: (presented: string | string[] | undefined) => TokenCheck;
  /** Largest model upload in bytes. */
  maxUploadBytes: number;
  /** Folder for uploads while they stream in. */
  tmpDir: string;
  /** Base of handed-out URLs; derived from the request when undefined. */
  publicBaseUrl: string | undefined;
}

/** Largest uploaded thumbnail (model-catalog.md: 2 MB). */
export const MAX_THUMBNAIL_BYTES = 2 * 1024 * 1024;

const MODEL_NOT_FOUND = 'Model not found';
const NOT_READY = 'Model not ready or not found';
const tags = ['models'];
const errors = {
  400: CatalogErrorSchema,
  401: CatalogErrorSchema,
  404: CatalogErrorSchema,
};

/** The model catalog of model-catalog.md plus upload and reprocess, mounted at `/api/models`. */
export const catalogRoutes: FastifyPluginAsync<CatalogRoutesOptions> = async (fastify, options) => {
  const { models, materials, blobs, queue } = options;
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    errorBody: (_status, error) => ({ success: false, error }),
    internalMessage: 'Internal server error',
    notFoundMessage: 'Not found',
  });
  await fastify.register(multipart, { throwFileSizeLimit: false });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const baseUrl = (request: FastifyRequest) =>
    options.publicBaseUrl ?? `${request.protocol}://${request.host}`;
  const urlFor = (request: FastifyRequest) => (key: string) => blobs.publicUrl(key, baseUrl(request));
  const existing = async (id: string, message = MODEL_NOT_FOUND) => {
    const row = await models.get(id);
    if (!row) throw new ApiError(404, message);
    return row;
  };
  const completed = async (id: string) => {
    const row = await existing(id, NOT_READY);
    if (row.status !== 'completed') throw new ApiError(404, NOT_READY);
    return row;
  };

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List models, newest first, with search, filters and offset paging',
        querystring: ListModelsQuery,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: Type.Array(ModelSchema),
            meta: Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { search, status, format } = request.query;
      const limit = request.query.limit || 20;
      const offset = request.query.offset || 0;
      const { rows, total } = await models.list({ search, status, format, limit, offset });
      const toWire = urlFor(request);
      return {
        success: true as const,
        data: rows.map((row) => toModel(row, toWire)),
        meta: { total, limit, offset },
      };
    },
  );

  app.post(
    '/',
    {
      schema: {
        tags,
        summary:
          'Upload a model (multipart field `file`, optional `name`, `description`); converts in the background',
        consumes: ['multipart/form-data'],
        response: { 201: catalogEnvelope(ModelSchema), ...errors, 413: CatalogErrorSchema },
      },
    },
    async (request, reply) => {
      const { file, fields } = await receiveForm(request, {
        fileField: 'file',
        maxBytes: options.maxUploadBytes,
        tmpDir: options.tmpDir,
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

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Read a model',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(ModelSchema), ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      data: toModel(await existing(request.params.id), urlFor(request)),
    }),
  );

  app.get(
    '/:id/parts',
    {
      schema: {
        tags,
        summary: "A model's parts in scene order, each with its bound material",
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Array(PartSchema)), ...errors },
      },
    },
    async (request) => {
      await existing(request.params.id);
      const parts = await models.parts(request.params.id);
      const bound = await materials.lookup(parts.map((part) => part.group_id));
      return { success: true as const, data: parts.map((part) => toPart(part, bound.get(part.group_id))) };
    },
  );

  app.get(
    '/:id/url',
    {
      schema: {
        tags,
        summary: 'Address of the converted model (LOD 0)',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Object({ url: Type.String() })), ...errors },
      },
    },
    async (request) => {
      const model = toModel(await completed(request.params.id), urlFor(request));
      return { success: true as const, data: { url: model.model_url ?? '' } };
    },
  );

  app.get(
    '/:id/lod',
    {
      schema: {
        tags,
        summary: 'Every level of detail with its address, triangle count and size',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Array(LodSchema)), ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      data: toModel(await completed(request.params.id), urlFor(request)).lods,
    }),
  );

  app.get(
    '/:id/lod/:level',
    {
      schema: {
        tags,
        summary: 'Address of one level of detail (0, 1 or 2)',
        params: LodLevelParams,
        response: {
          200: catalogEnvelope(Type.Object({ url: Type.String(), level: Type.Integer() })),
          ...errors,
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const level = Number(request.params.level);
      const lod = toModel(await completed(id), urlFor(request)).lods.find(
        (candidate) => candidate.level === level,
      );
      if (!lod) throw new ApiError(404, NOT_READY);
      return { success: true as const, data: { url: lod.url, level } };
    },
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Change name, description or tags',
        params: ModelIdParams,
        body: PatchModelBody,
        response: { 200: catalogEnvelope(ModelSchema), ...errors },
      },
    },
    async (request) => {
      const body = request.body;
      const name = body.name?.trim();
      if (name !== undefined && name.length === 0) throw new ApiError(400, 'name must not be blank');
      const row = await models.updateMetadata(request.params.id, { ...body, ...(name ? { name } : {}) });
      if (!row) throw new ApiError(404, MODEL_NOT_FOUND);
      return { success: true as const, data: toModel(row, urlFor(request)) };
    },
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a model, its parts, files, queued jobs and the bindings no other model uses',
        params: ModelIdParams,
        response: { 200: CatalogMessageSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      await existing(id);
      await queue.cancelQueued(id);
      if (!(await models.delete(id))) throw new ApiError(404, MODEL_NOT_FOUND);
      await blobs.deletePrefix(`models/${id}/`);
      return { success: true as const, message: 'Model deleted successfully' };
    },
  );

  app.post(
    '/:id/thumbnail',
    {
      schema: {
        tags,
        summary: 'Upload a PNG or JPEG thumbnail (multipart field `thumbnail`, at most 2 MB)',
        consumes: ['multipart/form-data'],
        params: ModelIdParams,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: ModelSchema, thumbnail_url: Type.String() }),
          ...errors,
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
        tmpDir: options.tmpDir,
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
        tags,
        summary: 'Queue a job that renders the thumbnail again (with the current material bindings)',
        params: ModelIdParams,
        response: { 200: CatalogMessageSchema, ...errors },
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

  app.post(
    '/:id/reprocess',
    {
      schema: {
        tags,
        summary: 'Convert the model again from its upload (back to pending)',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(ModelSchema), ...errors, 409: CatalogErrorSchema },
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
};
