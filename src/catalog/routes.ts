import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import {
  CATALOG_ERRORS,
  CATALOG_TAGS,
  createRouteContext,
  type CatalogRoutesOptions,
} from './route-context.ts';
import {
  LodLevelParams,
  LodSchema,
  ListModelsQuery,
  MODEL_NOT_FOUND,
  NOT_READY,
  ModelIdParams,
  ModelSchema,
  PartParams,
  PartSchema,
  PartsQuery,
  PartWithPropertiesSchema,
  PatchModelBody,
  toModel,
  toPart,
  toPartWithProperties,
} from './schemas.ts';
import { PART_NOT_FOUND, partFilter } from './part-filters.ts';
import { catalogEnvelope, CatalogMessageSchema, CATALOG_FAMILY } from '../http/catalog-family.ts';
import { registerThumbnailRoutes } from './thumbnails/thumbnail-routes.ts';
import { registerUploadRoutes } from './intake/upload-routes.ts';

export type { CatalogRoutesOptions } from './route-context.ts';

/** The model catalog with upload and reprocess, mounted at `/api/models`. */
export const catalogRoutes: FastifyPluginAsync<CatalogRoutesOptions> = async (fastify, options) => {
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    ...CATALOG_FAMILY,
  });
  await fastify.register(multipart, { throwFileSizeLimit: false });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const context = createRouteContext(options);
  const { models, materials, catalog, urlFor, existing, completed } = context;

  app.get(
    '/',
    {
      schema: {
        operationId: 'listModels',
        tags: CATALOG_TAGS,
        summary: 'List models (newest first unless sorted) with search, filters, sort and offset paging',
        querystring: ListModelsQuery,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: Type.Array(ModelSchema),
            meta: Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
          }),
          ...CATALOG_ERRORS,
        },
      },
    },
    async (request) => {
      const { search, status, format, tag, sort } = request.query;
      const limit = request.query.limit || 20;
      const offset = request.query.offset || 0;
      const { rows, total } = await models.list({ search, status, format, tag, sort, limit, offset });
      const toWire = urlFor(request);
      return {
        success: true as const,
        data: rows.map((row) => toModel(row, toWire)),
        meta: { total, limit, offset },
      };
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        operationId: 'getModel',
        tags: CATALOG_TAGS,
        summary: 'Read a model',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(ModelSchema), ...CATALOG_ERRORS },
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
        operationId: 'listModelParts',
        tags: CATALOG_TAGS,
        summary:
          "A model's parts in scene order, each with its bound material; optionally filtered by property",
        description:
          'Without `where` or `q` every part, as before. The list never carries properties (they can be large: ' +
          'read one part for them); a filter only narrows it.',
        params: ModelIdParams,
        querystring: PartsQuery,
        response: { 200: catalogEnvelope(Type.Array(PartSchema)), ...CATALOG_ERRORS },
      },
    },
    async (request) => {
      const filter = partFilter(request.query);
      await existing(request.params.id);
      const parts = filter
        ? await models.filteredParts(request.params.id, filter)
        : await models.parts(request.params.id);
      const { bound } = await materials.lookup(parts.map((part) => part.group_id));
      return { success: true as const, data: parts.map((part) => toPart(part, bound.get(part.group_id))) };
    },
  );

  app.get(
    '/:id/parts/:group_id',
    {
      schema: {
        operationId: 'getModelPart',
        tags: CATALOG_TAGS,
        summary: 'One part with its bound material and the properties read from the source file',
        params: PartParams,
        response: { 200: catalogEnvelope(PartWithPropertiesSchema), ...CATALOG_ERRORS },
      },
    },
    async (request) => {
      await existing(request.params.id);
      const part = await models.part(request.params.id, request.params.group_id);
      if (!part) throw new ApiError(404, PART_NOT_FOUND);
      const { bound } = await materials.lookup([part.group_id]);
      return { success: true as const, data: toPartWithProperties(part, bound.get(part.group_id)) };
    },
  );

  app.get(
    '/:id/url',
    {
      schema: {
        operationId: 'getModelUrl',
        tags: CATALOG_TAGS,
        summary: 'Address of the converted model (LOD 0)',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Object({ url: Type.String() })), ...CATALOG_ERRORS },
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
        operationId: 'listModelLods',
        tags: CATALOG_TAGS,
        summary: 'Every level of detail with its address, triangle count and size',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Array(LodSchema)), ...CATALOG_ERRORS },
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
        operationId: 'getModelLod',
        tags: CATALOG_TAGS,
        summary: 'Address of one level of detail (0, 1 or 2)',
        params: LodLevelParams,
        response: {
          200: catalogEnvelope(Type.Object({ url: Type.String(), level: Type.Integer() })),
          ...CATALOG_ERRORS,
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
        operationId: 'updateModel',
        tags: CATALOG_TAGS,
        summary:
          'Change name, description, tags, or the declared unit and up axis (applied by the next reprocess)',
        params: ModelIdParams,
        body: PatchModelBody,
        response: { 200: catalogEnvelope(ModelSchema), ...CATALOG_ERRORS },
      },
    },
    async (request) => {
      const body = request.body;
      const name = body.name?.trim();
      if (name !== undefined && name.length === 0) throw new ApiError(400, 'name must not be blank');
      const row = await catalog.updateMetadata(request.params.id, { ...body, ...(name ? { name } : {}) });
      if (!row) throw new ApiError(404, MODEL_NOT_FOUND);
      return { success: true as const, data: toModel(row, urlFor(request)) };
    },
  );

  app.delete(
    '/:id',
    {
      schema: {
        operationId: 'deleteModel',
        tags: CATALOG_TAGS,
        summary: 'Delete a model, its parts, files, queued jobs and the bindings no other model uses',
        params: ModelIdParams,
        response: { 200: CatalogMessageSchema, ...CATALOG_ERRORS },
      },
    },
    async (request) => {
      if (!(await catalog.remove(request.params.id))) throw new ApiError(404, MODEL_NOT_FOUND);
      return { success: true as const, message: 'Model deleted successfully' };
    },
  );

  registerUploadRoutes(app, context);
  registerThumbnailRoutes(app, context);
};
