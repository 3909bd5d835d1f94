import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { MODEL_NOT_FOUND, ModelIdParams } from '../catalog/schemas.ts';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import {
  catalogEnvelope,
  CatalogErrorSchema,
  CatalogMessageSchema,
  CATALOG_FAMILY,
} from '../http/catalog-family.ts';
import { authorOf, existingModel, type ReviewRoutesOptions } from './review-context.ts';
import { CreateViewBody, SavedViewSchema, ViewIdParams } from './schemas.ts';

/** The answer for a view the model does not have. */
export const VIEW_NOT_FOUND = 'View not found';

const tags = ['review'];
const errors = {
  400: CatalogErrorSchema,
  401: CatalogErrorSchema,
  403: CatalogErrorSchema,
  404: CatalogErrorSchema,
};

/** Most unknown group ids one refusal names. */
const NAMED_UNKNOWN = 5;

/** Refuses a view whose `hidden` or `isolated` names a part the model does not have, naming the first few. */
async function checkGroups(
  models: ReviewRoutesOptions['models'],
  modelId: string,
  view: { hidden: readonly string[]; isolated: readonly string[] },
): Promise<void> {
  if (view.hidden.length === 0 && view.isolated.length === 0) return;
  const known = new Set((await models.parts(modelId)).map((part) => part.group_id));
  for (const field of ['hidden', 'isolated'] as const) {
    const unknown = view[field].filter((groupId) => !known.has(groupId));
    if (unknown.length === 0) continue;
    const named = unknown.slice(0, NAMED_UNKNOWN).map((groupId) => JSON.stringify(groupId));
    const more = unknown.length > NAMED_UNKNOWN ? ` and ${unknown.length - NAMED_UNKNOWN} more` : '';
    throw new ApiError(
      400,
      `${field} names group ids that are not parts of the model: ${named.join(', ')}${more} (see GET /api/models/:id/parts)`,
    );
  }
}

/**
 * `/api/models/:id/views`: saved cameras and visibility states, in the catalog's envelope beside the catalog
 * plugin. A link to a model can name one of its views by id, for the viewer to open the model at it.
 */
export const viewRoutes: FastifyPluginAsync<ReviewRoutesOptions> = async (fastify, options) => {
  const { models, views, events } = options;
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    ...CATALOG_FAMILY,
    notFoundMessage: undefined,
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/:id/views',
    {
      schema: {
        operationId: 'createView',
        tags,
        summary: 'Save a view of the model: camera, hidden and isolated parts, section planes, x-ray, level',
        description:
          "Camera and planes are in the model's metres with +Y up. `hidden` and `isolated` name parts the model " +
          'has now; a part that is gone after a reprocess or a new version is simply not found by the viewer. ' +
          'Publishes `view.created`.',
        params: ModelIdParams,
        body: CreateViewBody,
        response: { 201: catalogEnvelope(SavedViewSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await existingModel(models, id);
      const { camera, sections } = request.body;
      if (camera.up.every((value) => value === 0)) throw new ApiError(400, 'camera.up must not be zero');
      if (camera.position.every((value, axis) => value === camera.target[axis])) {
        throw new ApiError(400, 'camera.position and camera.target must differ');
      }
      const flat = sections.findIndex((plane) => plane.normal.every((value) => value === 0));
      if (flat >= 0) throw new ApiError(400, `sections[${flat}].normal must not be zero`);
      await checkGroups(models, id, request.body);
      const created = await views.create(id, request.body, await authorOf(options, request));
      if (!created) throw new ApiError(404, MODEL_NOT_FOUND);
      await events.publish('view.created', { model_id: id, view_id: created.id });
      return reply.code(201).send({ success: true as const, data: created });
    },
  );

  app.get(
    '/:id/views',
    {
      schema: {
        operationId: 'listViews',
        tags,
        summary: "The model's saved views, oldest first",
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Array(SavedViewSchema)), ...errors },
      },
    },
    async (request) => {
      await existingModel(models, request.params.id);
      return { success: true as const, data: await views.list(request.params.id) };
    },
  );

  app.get(
    '/:id/views/:view_id',
    {
      schema: {
        operationId: 'getView',
        tags,
        summary: 'One saved view',
        params: ViewIdParams,
        response: { 200: catalogEnvelope(SavedViewSchema), ...errors },
      },
    },
    async (request) => {
      const { id, view_id } = request.params;
      await existingModel(models, id);
      const view = await views.get(id, view_id);
      if (!view) throw new ApiError(404, VIEW_NOT_FOUND);
      return { success: true as const, data: view };
    },
  );

  app.delete(
    '/:id/views/:view_id',
    {
      schema: {
        operationId: 'deleteView',
        tags,
        summary: 'Delete a saved view',
        description: 'Publishes `view.deleted`.',
        params: ViewIdParams,
        response: { 200: CatalogMessageSchema, ...errors },
      },
    },
    async (request) => {
      const { id, view_id } = request.params;
      await existingModel(models, id);
      if (!(await views.delete(id, view_id))) throw new ApiError(404, VIEW_NOT_FOUND);
      await events.publish('view.deleted', { model_id: id, view_id });
      return { success: true as const, message: 'View deleted' };
    },
  );
};
