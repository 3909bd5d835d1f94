import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { AnnounceBindings, AnnounceMaterialEdit } from '../events/announcers.ts';
import { ApiError } from '../http/api-error.ts';
import { tagReply } from '../http/etag.ts';
import { installApiFamily } from '../http/api-family.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import { clampPage } from './paging.ts';
import { lookupResponseChunks, type LookupResponse } from './lookup-response.ts';
import { createMaterialReads } from './material-reads.ts';
import type { MaterialRepository } from './repository.ts';
import {
  CreateMaterialBody,
  envelope,
  GroupIdsBody,
  ListMaterialsQuery,
  LookupBody,
  LookupMaterialSchema,
  MAX_NAME_LENGTH,
  MaterialErrorSchema,
  MaterialIdParams,
  MaterialSchema,
  PageQuery,
  paginated,
  UpdateMaterialBody,
} from './schemas.ts';

/** What the material routes need from the app. */
export interface MaterialRoutesOptions {
  repository: MaterialRepository;
  checkToken: TokenChecker;
  /** Bytes of bulk lookup replies kept per process for repeated requests; 0 keeps none. */
  lookupCacheBytes: number;
  announceBindings: AnnounceBindings;
  announceMaterialEdit?: AnnounceMaterialEdit;
}

// Room for 100,000 group ids of the longest allowed length, with JSON quoting.
const BULK_BODY_LIMIT = 32 * 1024 * 1024;

const NOT_FOUND = 'material not found';
/** The answer to a lookup naming a configuration that does not exist. */
const CONFIGURATION_NOT_FOUND = 'configuration not found';
const errors = { 400: MaterialErrorSchema, 401: MaterialErrorSchema, 404: MaterialErrorSchema };
const tags = ['materials'];

const MaterialReply = envelope(MaterialSchema);
const LookupReply = envelope(
  Type.Array(Type.Object({ group_id: Type.String(), material: LookupMaterialSchema })),
);
type LookupReply = Static<typeof LookupReply>;

/** The material service, mounted at `/api/v1`. */
export const materialRoutes: FastifyPluginAsync<MaterialRoutesOptions> = async (
  fastify,
  { repository, checkToken, lookupCacheBytes, announceBindings, announceMaterialEdit },
) => {
  installApiFamily(fastify, {
    checkToken,
    errorBody: (code, message) => ({ code, message }),
    internalMessage: 'internal server error',
    notFoundMessage: 'not found',
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const ok = <T>(data: T, message = 'success') => ({ code: 0 as const, message, data });
  const reads = createMaterialReads({ repository, lookupCacheBytes, bodyLimit: BULK_BODY_LIMIT });

  app.get(
    '/materials',
    {
      schema: {
        operationId: 'listMaterials',
        tags,
        summary: 'List materials by id, a page at a time',
        querystring: ListMaterialsQuery,
        response: { 200: envelope(paginated(MaterialSchema)), ...errors },
      },
    },
    async (request) => {
      const { page, page_size, offset } = clampPage(request.query);
      const result = await repository.list({ offset, limit: page_size, name: request.query.name });
      return ok({ ...result, page, page_size });
    },
  );

  app.post(
    '/materials',
    {
      schema: {
        operationId: 'createMaterial',
        tags,
        summary: 'Create a material',
        body: CreateMaterialBody,
        response: { 201: envelope(MaterialSchema), ...errors },
      },
    },
    async (request, reply) => {
      const material = await repository.create({ ...request.body, name: checkName(request.body.name) });
      return reply.code(201).send(ok(material, 'created'));
    },
  );

  app.get(
    '/materials/:id',
    {
      schema: {
        operationId: 'getMaterial',
        tags,
        summary: 'Read a material',
        params: MaterialIdParams,
        response: { 200: MaterialReply, ...errors },
      },
      // A material's reply stays under the compression threshold (its longest name included): no per-request check.
      compress: false,
      onSend: tagReply,
    },
    async (request, reply) => {
      const { id } = request.params;
      // The route's schema serializer, which always gives a string.
      const kept = await reads.materialReply(id, (material) => String(reply.serialize(ok(material))));
      if (kept === undefined) return ok(found(await repository.get(id)));
      if (kept === null) throw new ApiError(404, NOT_FOUND);
      // Already JSON: a string skips the schema serializer, which the reply type cannot express.
      reply.type('application/json; charset=utf-8').header('etag', kept.etag);
      return reply.send(kept.body as unknown as Static<typeof MaterialReply>);
    },
  );

  app.put(
    '/materials/:id',
    {
      schema: {
        operationId: 'updateMaterial',
        tags,
        summary: 'Change some fields of a material; omitted fields keep their value',
        params: MaterialIdParams,
        body: UpdateMaterialBody,
        response: { 200: envelope(MaterialSchema), ...errors },
      },
    },
    async (request) => {
      const body = request.body;
      const input = body.name === undefined ? body : { ...body, name: checkName(body.name) };
      const updated = found(await repository.update(request.params.id, input));
      await announceMaterialEdit?.(request.params.id, Object.keys(body));
      return ok(updated);
    },
  );

  app.delete(
    '/materials/:id',
    {
      schema: {
        operationId: 'deleteMaterial',
        tags,
        summary: 'Delete a material and its bindings',
        params: MaterialIdParams,
        response: { 200: envelope(Type.Object({ id: Type.Integer() })), ...errors },
      },
    },
    async (request) => {
      const unbound = await repository.delete(request.params.id);
      if (!unbound) throw new ApiError(404, NOT_FOUND);
      if (unbound.length > 0) await announceBindings(request.params.id, unbound, false);
      return ok({ id: request.params.id });
    },
  );

  app.post(
    '/materials/:id/bindings',
    {
      bodyLimit: BULK_BODY_LIMIT,
      schema: {
        operationId: 'bindMaterial',
        tags,
        summary: 'Bind groups to a material (a group bound elsewhere moves here)',
        params: MaterialIdParams,
        body: GroupIdsBody,
        response: {
          200: envelope(Type.Object({ material_id: Type.Integer(), group_ids: Type.Array(Type.String()) })),
          ...errors,
        },
      },
    },
    async (request) => {
      const groupIds = unique(request.body.group_ids);
      if (!(await repository.bind(request.params.id, groupIds))) throw new ApiError(404, NOT_FOUND);
      await announceBindings(request.params.id, groupIds, true);
      return ok({ material_id: request.params.id, group_ids: groupIds });
    },
  );

  app.delete(
    '/materials/:id/bindings',
    {
      bodyLimit: BULK_BODY_LIMIT,
      schema: {
        operationId: 'unbindMaterial',
        tags,
        summary: 'Unbind groups from a material; `unbound` lists the ids really removed',
        params: MaterialIdParams,
        body: GroupIdsBody,
        response: {
          200: envelope(Type.Object({ material_id: Type.Integer(), unbound: Type.Array(Type.String()) })),
          ...errors,
        },
      },
    },
    async (request) => {
      const groupIds = unique(request.body.group_ids);
      const removed = await repository.unbind(request.params.id, groupIds);
      if (!removed) throw new ApiError(404, NOT_FOUND);
      const unbound = groupIds.filter((id) => removed.has(id));
      if (unbound.length > 0) await announceBindings(request.params.id, unbound, false);
      return ok({ material_id: request.params.id, unbound });
    },
  );

  app.get(
    '/materials/:id/groups',
    {
      schema: {
        operationId: 'listMaterialGroups',
        tags,
        summary: "A material's group ids in ascending order, a page at a time",
        params: MaterialIdParams,
        querystring: PageQuery,
        response: { 200: envelope(paginated(Type.String())), ...errors },
      },
    },
    async (request) => {
      const { page, page_size, offset } = clampPage(request.query);
      const result = found(await repository.groups(request.params.id, { offset, limit: page_size }));
      return ok({ ...result, page, page_size });
    },
  );

  app.post(
    '/groups/materials',
    {
      bodyLimit: BULK_BODY_LIMIT,
      schema: {
        operationId: 'lookupGroupMaterials',
        tags,
        summary: 'The materials bound to a set of groups, in request order',
        description:
          'With `configuration_id`, a group the configuration binds shows its material there and any other its ' +
          'present binding; an unknown configuration is a 404 `configuration not found`.',
        body: LookupBody,
        response: {
          200: LookupReply,
          ...errors,
        },
      },
      // Kept replies are found from the request's bytes, before they are parsed (see material-reads.ts).
      preParsing: (request, _reply, payload) => reads.receiveLookup(request, request.headers, payload),
      onSend: tagReply,
    },
    async (request, reply) => {
      const response = await reads.answerLookup(request, request.body);
      if (!response) throw new ApiError(404, CONFIGURATION_NOT_FOUND);
      return sendLookupResponse(reply, response);
    },
  );
};

/**
 * Sends a lookup answer with its tag: in one buffer as it was written, or a patched one as the list of its pieces
 * with their total length (no copy of the unchanged 30 MB). Already JSON, so the schema serializer is skipped,
 * which the reply type cannot express, hence the cast; the lookup tests compare the bytes with the schema.
 */
function sendLookupResponse(reply: FastifyReply, response: LookupResponse): FastifyReply {
  reply.type('application/json; charset=utf-8').header('etag', response.etag);
  const chunks = lookupResponseChunks(response);
  if (chunks.length === 1) return reply.send(chunks[0] as unknown as LookupReply);
  reply.header('content-length', response.size);
  return reply.send(Readable.from(chunks, { objectMode: false }) as unknown as LookupReply);
}

function found<T>(value: T | undefined): T {
  if (value === undefined) throw new ApiError(404, NOT_FOUND);
  return value;
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > MAX_NAME_LENGTH) {
    throw new ApiError(400, `name must be a string of 1 to ${MAX_NAME_LENGTH} characters`);
  }
  return trimmed;
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
