import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { MODEL_NOT_FOUND, ModelIdParams } from '../catalog/schemas.ts';
import type { AnnotationEventData } from '../events/event-types.ts';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import {
  catalogEnvelope,
  CatalogErrorSchema,
  CatalogMessageSchema,
  CATALOG_FAMILY,
} from '../http/catalog-family.ts';
import { authorOf, existingModel, partOf, type ReviewRoutesOptions } from './review-context.ts';
import {
  AnnotationIdParams,
  AnnotationSchema,
  CreateAnnotationBody,
  PatchAnnotationBody,
  type Annotation,
} from './schemas.ts';

/** The answer for an annotation the model does not have. */
export const ANNOTATION_NOT_FOUND = 'Annotation not found';

const tags = ['review'];
const errors = {
  400: CatalogErrorSchema,
  401: CatalogErrorSchema,
  403: CatalogErrorSchema,
  404: CatalogErrorSchema,
};

/** What the annotation events say about an annotation. */
const eventData = (annotation: Annotation): AnnotationEventData => ({
  model_id: annotation.model_id,
  annotation_id: annotation.id,
  group_id: annotation.group_id,
});

/**
 * `/api/models/:id/annotations`: notes pinned to a part, in the catalog's envelope beside the catalog plugin, so
 * unknown paths still reach its 404. Read tokens list them; writing needs a write token.
 */
export const annotationRoutes: FastifyPluginAsync<ReviewRoutesOptions> = async (fastify, options) => {
  const { models, annotations, events } = options;
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    ...CATALOG_FAMILY,
    notFoundMessage: undefined,
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/:id/annotations',
    {
      schema: {
        operationId: 'createAnnotation',
        tags,
        summary: 'Pin a note to a point on a part of the model',
        description:
          "`group_id` must be one of the model's parts; `position` is in the model's metres with +Y up (the " +
          "frame of its LOD files) and `normal` must not be zero. The author is the scoped token's name (null " +
          'for the admin token). Publishes `annotation.created`.',
        params: ModelIdParams,
        body: CreateAnnotationBody,
        response: { 201: catalogEnvelope(AnnotationSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { group_id, position, normal, text } = request.body;
      await existingModel(models, id);
      if (normal.every((value) => value === 0)) throw new ApiError(400, 'normal must not be zero');
      partOf(await models.parts(id), group_id);
      const created = await annotations.create({
        model_id: id,
        group_id,
        position,
        normal,
        text,
        author: await authorOf(options, request),
      });
      if (!created) throw new ApiError(404, MODEL_NOT_FOUND);
      await events.publish('annotation.created', eventData(created));
      return reply.code(201).send({ success: true as const, data: created });
    },
  );

  app.get(
    '/:id/annotations',
    {
      schema: {
        operationId: 'listAnnotations',
        tags,
        summary: "The model's annotations, oldest first",
        description:
          'An annotation whose part is gone after a reprocess stays listed with its group id; the parts list ' +
          'tells whether it still exists.',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Array(AnnotationSchema)), ...errors },
      },
    },
    async (request) => {
      await existingModel(models, request.params.id);
      return { success: true as const, data: await annotations.list(request.params.id) };
    },
  );

  app.patch(
    '/:id/annotations/:annotation_id',
    {
      schema: {
        operationId: 'updateAnnotation',
        tags,
        summary: "Edit an annotation's text or resolve it (or open it again)",
        description: 'Publishes `annotation.updated`.',
        params: AnnotationIdParams,
        body: PatchAnnotationBody,
        response: { 200: catalogEnvelope(AnnotationSchema), ...errors },
      },
    },
    async (request) => {
      const { id, annotation_id } = request.params;
      await existingModel(models, id);
      const updated = await annotations.update(id, annotation_id, request.body);
      if (!updated) throw new ApiError(404, ANNOTATION_NOT_FOUND);
      await events.publish('annotation.updated', eventData(updated));
      return { success: true as const, data: updated };
    },
  );

  app.delete(
    '/:id/annotations/:annotation_id',
    {
      schema: {
        operationId: 'deleteAnnotation',
        tags,
        summary: 'Delete an annotation',
        description: 'Publishes `annotation.deleted`.',
        params: AnnotationIdParams,
        response: { 200: CatalogMessageSchema, ...errors },
      },
    },
    async (request) => {
      const { id, annotation_id } = request.params;
      await existingModel(models, id);
      const deleted = await annotations.delete(id, annotation_id);
      if (!deleted) throw new ApiError(404, ANNOTATION_NOT_FOUND);
      await events.publish('annotation.deleted', eventData(deleted));
      return { success: true as const, message: 'Annotation deleted' };
    },
  );
};
