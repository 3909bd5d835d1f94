import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ModelRepository } from '../catalog/repository.ts';
import { MODEL_NOT_FOUND, ModelIdParams } from '../catalog/schemas.ts';
import type { AnnounceBindings } from '../events/announcers.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import {
  catalogEnvelope,
  CatalogErrorSchema,
  CatalogMessageSchema,
  CATALOG_FAMILY,
} from '../http/catalog-family.ts';
import type { ConfigurationRepository } from './repository.ts';
import {
  BindingsBody,
  CONFIGURATION_NOT_FOUND,
  ConfigurationParams,
  ConfigurationSchema,
  CreateConfigurationBody,
  MAX_CONFIGURATION_NAME_LENGTH,
  MAX_CONFIGURATIONS,
  PatchConfigurationBody,
  UnbindBody,
  toConfiguration,
  type ConfigurationBinding,
  type StoredConfiguration,
} from './schemas.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { UrlFor } from '../http/files/request-file-urls.ts';

/** What the configuration routes need from the app. */
export interface ConfigurationRoutesOptions {
  models: ModelRepository;
  configurations: ConfigurationRepository;
  events: EventPublisher;
  checkToken: TokenChecker;
  /** The material service's announcement of a bind: `bindings.changed` and the thumbnail refresh. */
  announceBindings: AnnounceBindings;
  blobs: BlobStore;
  /** Resolves blob keys to the signed URLs this request's client should use. */
  urlFor(request: FastifyRequest): UrlFor;
  /** Removes what other features keep of a deleted configuration (its cached exports). */
  onDeleted(modelId: string, configurationId: string): Promise<void>;
}

// As the material service's bulk routes: room for 100,000 bindings with ids of the longest allowed length.
const BULK_BODY_LIMIT = 32 * 1024 * 1024;
/** Most unknown ids one refusal names. */
const NAMED_UNKNOWN = 5;

const tags = ['configurations'];
const errors = {
  400: CatalogErrorSchema,
  401: CatalogErrorSchema,
  403: CatalogErrorSchema,
  404: CatalogErrorSchema,
  409: CatalogErrorSchema,
};
const ConfigurationReply = catalogEnvelope(ConfigurationSchema);

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1) {
    throw new ApiError(400, `name must be 1 to ${MAX_CONFIGURATION_NAME_LENGTH} characters, not blank`);
  }
  return trimmed;
}

function nameTaken(name: string): ApiError {
  return new ApiError(409, `The model already has a configuration named "${name}"`);
}

/** Refuses a request about a model that does not exist, in the catalog's words. */
async function existingModel(models: ModelRepository, id: string): Promise<void> {
  if (!(await models.get(id))) throw new ApiError(404, MODEL_NOT_FOUND);
}

function listed(values: readonly (string | number)[]): string {
  const named = values.slice(0, NAMED_UNKNOWN).map((value) => JSON.stringify(value));
  const more = values.length > NAMED_UNKNOWN ? ` and ${values.length - NAMED_UNKNOWN} more` : '';
  return `${named.join(', ')}${more}`;
}

/**
 * `/api/models/:id/configurations`: named sets of bound materials of a model, in the catalog's envelope beside
 * the catalog plugin. A configuration changes nothing the model shows until it is applied; the material lookup
 * shows one when asked with its id.
 */
export const configurationRoutes: FastifyPluginAsync<ConfigurationRoutesOptions> = async (
  fastify,
  options,
) => {
  const { models, configurations, events, announceBindings, blobs } = options;
  const shown = (request: FastifyRequest, stored: StoredConfiguration) =>
    toConfiguration(stored, options.urlFor(request));
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    ...CATALOG_FAMILY,
    notFoundMessage: undefined,
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  /** The bindings, one per group (the last wins), after checking every group and material; a 400 names misfits. */
  async function checkedBindings(modelId: string, bindings: readonly ConfigurationBinding[]) {
    const byGroup = new Map<string, number>();
    for (const binding of bindings) byGroup.set(binding.group_id, binding.material_id);
    const unknownGroups = await configurations.groupsNotOf(modelId, [...byGroup.keys()]);
    if (unknownGroups.length > 0) {
      throw new ApiError(
        400,
        `group_id ${listed(unknownGroups)} is not a part of the model (see GET /api/models/:id/parts); nothing was changed`,
      );
    }
    const unknownMaterials = await configurations.unknownMaterials([...byGroup.values()]);
    if (unknownMaterials.length > 0) {
      throw new ApiError(
        400,
        `material_id ${listed(unknownMaterials)} is not a material; nothing was changed`,
      );
    }
    return [...byGroup].map(([group_id, material_id]) => ({ group_id, material_id }));
  }

  app.get(
    '/:id/configurations',
    {
      schema: {
        operationId: 'listConfigurations',
        tags,
        summary: "The model's configurations, oldest first",
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Array(ConfigurationSchema)), ...errors },
      },
    },
    async (request) => {
      await existingModel(models, request.params.id);
      const stored = await configurations.list(request.params.id);
      return { success: true as const, data: stored.map((one) => shown(request, one)) };
    },
  );

  app.post(
    '/:id/configurations',
    {
      schema: {
        operationId: 'createConfiguration',
        tags,
        summary:
          'Create a configuration: empty, from the present bindings (`from: "current"`) or from another',
        description: `Names are unique within the model (409); at most ${MAX_CONFIGURATIONS} configurations a model (409). Publishes \`configuration.created\`.`,
        params: ModelIdParams,
        body: CreateConfigurationBody,
        response: { 201: ConfigurationReply, ...errors },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await existingModel(models, id);
      const name = checkedName(request.body.name);
      const from = request.body.from;
      const created = await configurations.create(id, {
        name,
        description: request.body.description ?? '',
        from,
      });
      if (created === 'name-taken') throw nameTaken(name);
      if (created === 'too-many') {
        throw new ApiError(
          409,
          `The model has ${MAX_CONFIGURATIONS} configurations, the most it may have; delete one first`,
        );
      }
      if (created === 'from-unknown') {
        throw new ApiError(
          400,
          `from must be "current" or the id of a configuration of this model, not ${JSON.stringify(from)}`,
        );
      }
      await events.publish('configuration.created', { model_id: id, configuration_id: created.id });
      return reply.code(201).send({ success: true as const, data: shown(request, created) });
    },
  );

  app.get(
    '/:id/configurations/:cid',
    {
      schema: {
        operationId: 'getConfiguration',
        tags,
        summary: 'One configuration',
        params: ConfigurationParams,
        response: { 200: ConfigurationReply, ...errors },
      },
    },
    async (request) => {
      const { id, cid } = request.params;
      await existingModel(models, id);
      const found = await configurations.get(id, cid);
      if (!found) throw new ApiError(404, CONFIGURATION_NOT_FOUND);
      return { success: true as const, data: shown(request, found) };
    },
  );

  app.patch(
    '/:id/configurations/:cid',
    {
      schema: {
        operationId: 'updateConfiguration',
        tags,
        summary: 'Rename or redescribe a configuration',
        description: 'Publishes `configuration.updated`.',
        params: ConfigurationParams,
        body: PatchConfigurationBody,
        response: { 200: ConfigurationReply, ...errors },
      },
    },
    async (request) => {
      const { id, cid } = request.params;
      await existingModel(models, id);
      const { name, description } = request.body;
      const patch = {
        ...(name === undefined ? {} : { name: checkedName(name) }),
        ...(description === undefined ? {} : { description }),
      };
      const updated = await configurations.update(id, cid, patch);
      if (updated === 'name-taken') throw nameTaken(patch.name!);
      if (!updated) throw new ApiError(404, CONFIGURATION_NOT_FOUND);
      await events.publish('configuration.updated', { model_id: id, configuration_id: cid });
      return { success: true as const, data: shown(request, updated) };
    },
  );

  app.delete(
    '/:id/configurations/:cid',
    {
      schema: {
        operationId: 'deleteConfiguration',
        tags,
        summary: 'Delete a configuration and its bindings (the model keeps its own)',
        description: 'Publishes `configuration.deleted`.',
        params: ConfigurationParams,
        response: { 200: CatalogMessageSchema, ...errors },
      },
    },
    async (request) => {
      const { id, cid } = request.params;
      await existingModel(models, id);
      const deleted = await configurations.delete(id, cid);
      if (!deleted) throw new ApiError(404, CONFIGURATION_NOT_FOUND);
      if (deleted.thumbnailKey) await blobs.delete(deleted.thumbnailKey);
      await options.onDeleted(id, cid);
      await events.publish('configuration.deleted', { model_id: id, configuration_id: cid });
      return { success: true as const, message: 'Configuration deleted' };
    },
  );

  const bindingsWrite =
    (mode: 'replace' | 'add') =>
    async (
      request: FastifyRequest & {
        params: { id: string; cid: string };
        body: { bindings: ConfigurationBinding[] };
      },
    ) => {
      const { id, cid } = request.params;
      await existingModel(models, id);
      if (!(await configurations.get(id, cid))) throw new ApiError(404, CONFIGURATION_NOT_FOUND);
      const bindings = await checkedBindings(id, request.body.bindings);
      const updated = await configurations.writeBindings(id, cid, bindings, mode);
      if (!updated) throw new ApiError(404, CONFIGURATION_NOT_FOUND);
      await events.publish('configuration.updated', { model_id: id, configuration_id: cid });
      return { success: true as const, data: shown(request, updated) };
    };

  for (const [method, mode, summary] of [
    ['put', 'replace', "Replace the configuration's bindings"],
    ['post', 'add', 'Add bindings to the configuration (a group it binds already moves to the new material)'],
  ] as const) {
    app[method](
      '/:id/configurations/:cid/bindings',
      {
        bodyLimit: BULK_BODY_LIMIT,
        schema: {
          operationId: mode === 'replace' ? 'replaceConfigurationBindings' : 'addConfigurationBindings',
          tags,
          summary,
          description:
            'A group_id not of this model or a material_id that is no material is a 400 naming it, and nothing is ' +
            'changed. Publishes `configuration.updated`.',
          params: ConfigurationParams,
          body: BindingsBody,
          response: { 200: ConfigurationReply, ...errors },
        },
      },
      bindingsWrite(mode),
    );
  }

  app.delete(
    '/:id/configurations/:cid/bindings',
    {
      bodyLimit: BULK_BODY_LIMIT,
      schema: {
        operationId: 'removeConfigurationBindings',
        tags,
        summary: "Remove some of the configuration's bindings",
        description: 'Group ids it does not bind are ignored. Publishes `configuration.updated`.',
        params: ConfigurationParams,
        body: UnbindBody,
        response: { 200: ConfigurationReply, ...errors },
      },
    },
    async (request) => {
      const { id, cid } = request.params;
      await existingModel(models, id);
      const updated = await configurations.removeBindings(id, cid, [...new Set(request.body.group_ids)]);
      if (!updated) throw new ApiError(404, CONFIGURATION_NOT_FOUND);
      await events.publish('configuration.updated', { model_id: id, configuration_id: cid });
      return { success: true as const, data: shown(request, updated) };
    },
  );

  app.post(
    '/:id/configurations/:cid/apply',
    {
      schema: {
        operationId: 'applyConfiguration',
        tags,
        summary: "Make the configuration's bindings the model's bindings (one transaction)",
        description:
          'Parts the configuration does not bind keep their present binding. Publishes `bindings.changed` per ' +
          'material (as a bind does, with its thumbnail refresh) and `configuration.applied`.',
        params: ConfigurationParams,
        response: { 200: ConfigurationReply, ...errors },
      },
    },
    async (request) => {
      const { id, cid } = request.params;
      await existingModel(models, id);
      const applied = await configurations.apply(id, cid);
      if (!applied) throw new ApiError(404, CONFIGURATION_NOT_FOUND);
      for (const [materialId, groupIds] of applied) await announceBindings(materialId, groupIds, true);
      await events.publish('configuration.applied', { model_id: id, configuration_id: cid });
      const found = await configurations.get(id, cid);
      if (!found) throw new ApiError(404, CONFIGURATION_NOT_FOUND);
      return { success: true as const, data: shown(request, found) };
    },
  );
};
