import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ModelRepository } from '../catalog/repository.ts';
import {
  partFilter,
  PartWithPropertiesSchema,
  storedLods,
  NOT_READY,
  storedTilesetFolder,
  toModel,
  toPart,
  toPartWithProperties,
} from '../catalog/schemas.ts';
import { catalogEnvelope, CatalogErrorSchema } from '../http/catalog-family.ts';
import type { ModelRow } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { REVOKED_WITHIN_SECONDS } from '../http/files/file-access.ts';
import { sendStoredFile, STORED_FILE_REDIRECT } from '../http/files/send-stored-file.ts';
import type { MaterialRepository } from '../materials/repository.ts';
import type { VersionRepository } from '../catalog/versions/repository.ts';
import type { AnnotationRepository } from '../review/repository.ts';
import type { ConfigurationRepository } from '../configurations/repository.ts';
import { AnnotationSchema } from '../review/schemas.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { installPublicErrors } from './public-errors.ts';
import { renderSharePage, sharePageCsp, SHARE_PAGE_GONE } from './share-page.ts';
import type { ShareRepository } from './share-repository.ts';
import {
  sharedConfigurationRoutes,
  sharedLookup,
  type ExportConfigurationFile,
} from './shared-configuration-routes.ts';
import {
  SHARE_NOT_FOUND,
  SharedPartsQuery,
  SecretParams,
  SharedLodParams,
  SharedModelParams,
  SharedModelSchema,
  SharedPartParams,
  SharedPartsSchema,
  type SharedModel,
} from './share-schemas.ts';
import { baseUrlOf, SHARE_PREFIX } from './share-urls.ts';
import { sharedTilesetRoutes } from './shared-tileset-routes.ts';

/** What the public share routes need from the app. */
export interface SharedModelRoutesOptions {
  models: ModelRepository;
  materials: MaterialRepository;
  shares: ShareRepository;
  /** The versions a link may pin, whose outputs it then serves. */
  versions: VersionRepository;
  /** The annotations a link shows when it was created with `annotations: true`. */
  annotations: AnnotationRepository;
  /** The configurations a link shows when it was created with `configurations: true`. */
  configurations: ConfigurationRepository;
  /** Starts or finds the export of a configuration, for its GLB and USDZ under the link. */
  exportFile: ExportConfigurationFile;
  blobs: BlobStore;
  /** Base of handed-out URLs; derived from the request when undefined. */
  publicBaseUrl: string | undefined;
  /** Folder of the viewer build holding `share.html`. */
  distDir: string;
  /** Origins besides the service's own that the share page may load from. */
  fileOrigins: string[];
}

/** What a secret opens: the model as the link serves it, whether it shows annotations, and the version served. */
interface OpenedModel {
  row: ModelRow;
  annotations: boolean;
  /** Whether the link shows the model's configurations and their files. */
  configurations: boolean;
  version: number;
  /** True when the version served is not the current one: its parts are then its own rows, not `model_parts`. */
  pinned: boolean;
}

/** A streamed file in the OpenAPI document. */
const binary = (description: string) =>
  Type.Unsafe<unknown>({ type: 'string', format: 'binary', description });

/** Answer for an unknown or revoked secret, and for any model the secret does not open. */
export { SHARE_NOT_FOUND };

const tags = ['shares'];
const errors = { 400: CatalogErrorSchema, 404: CatalogErrorSchema };
// No token: the secret in the path is the credential.
const security: [] = [];
// Revoking must take effect at once, so nothing under a link may be reused without asking again.
const NO_REUSE = 'private, no-cache';
/**
 * Life of the presigned URL a shared file redirects to (S3): the page asks the link again for every file, and
 * nothing under a link is reused, so a revoked link's files are out of reach within REVOKED_WITHIN_SECONDS even to
 * someone who kept one.
 */
export const SHARED_URL_EXPIRES_SECONDS = REVOKED_WITHIN_SECONDS;

/**
 * `/s/<secret>` and the routes under it: the public page of one shared model and the only data it reads. Each
 * route resolves the secret first and answers only for that secret's model; a revoked secret, another model's
 * id or an unknown path all answer 404. Nothing here reaches `/api`.
 */
export const sharedModelRoutes: FastifyPluginAsync<SharedModelRoutesOptions> = async (fastify, options) => {
  const { models, materials, shares, blobs, publicBaseUrl } = options;
  installPublicErrors(fastify, SHARE_NOT_FOUND);
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  /**
   * The model the secret opens, with whether the link shows its annotations; 404 when the secret is unknown or
   * `id` names another model.
   */
  const openShare = async (secret: string, id?: string): Promise<OpenedModel> => {
    const share = await shares.open(secret);
    if (!share || (id !== undefined && id !== share.model_id)) throw new ApiError(404, SHARE_NOT_FOUND);
    const row = await models.get(share.model_id);
    if (!row) throw new ApiError(404, SHARE_NOT_FOUND);
    if (share.version === null || share.version === row.current_version) {
      const { annotations, configurations } = share;
      return { row, annotations, configurations, version: row.current_version, pinned: false };
    }
    // A pinned version that is not current: its own outputs over the model's; gone with the version.
    const version = await options.versions.get(row.id, share.version);
    if (!version) throw new ApiError(404, SHARE_NOT_FOUND);
    const pinned: ModelRow = {
      ...row,
      status: version.status,
      thumbnail_key: version.thumbnail_key ?? row.thumbnail_key,
      lods: version.lods,
      tileset_key: version.tileset_key,
      triangle_count: version.triangle_count,
      vertex_count: version.vertex_count,
      part_count: version.part_count,
      bounds: version.bounds,
    };
    const { annotations, configurations } = share;
    return { row: pinned, annotations, configurations, version: version.number, pinned: true };
  };
  /** The model the secret opens; 404 when the secret is unknown or `id` names another model. */
  const sharedModel = async (secret: string, id?: string): Promise<ModelRow> =>
    (await openShare(secret, id)).row;
  const toShared = (
    request: FastifyRequest,
    secret: string,
    { row, annotations, configurations, version }: OpenedModel,
  ): SharedModel => {
    const base = `${baseUrlOf(publicBaseUrl, request)}${SHARE_PREFIX}${secret}/models/${row.id}`;
    // The catalog's own LOD view, so new LOD fields appear here too, with the addresses moved under the link.
    const lods = toModel(row, () => '').lods.map((lod) => ({ ...lod, url: `${base}/lod/${lod.level}` }));
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      status: row.status,
      lods,
      // Relative tile URIs resolve under `${base}/tileset/`, which the route below answers for this link alone.
      tileset_url: storedTilesetFolder(row) ? `${base}/tileset/tileset.json` : null,
      thumbnail_url: row.thumbnail_key ? `${base}/thumbnail` : null,
      triangle_count: row.triangle_count === null ? null : Number(row.triangle_count),
      vertex_count: row.vertex_count === null ? null : Number(row.vertex_count),
      part_count: row.part_count,
      source_unit: row.source_unit,
      unit: (row.unit as SharedModel['unit']) ?? null,
      version,
      annotations,
      configurations,
      bounds: row.bounds ? JSON.parse(row.bounds) : null,
    };
  };

  app.get('/:secret', { schema: { hide: true, params: SecretParams } }, async (request, reply) => {
    reply.header('content-security-policy', sharePageCsp(options.fileOrigins));
    reply.header('cache-control', 'no-store');
    // Gone like the data: an unknown or revoked secret, a deleted model or a deleted pinned version.
    const row = await openShare(request.params.secret).then(
      (opened) => opened.row,
      (error: unknown) => {
        if (error instanceof ApiError && error.statusCode === 404) return undefined;
        throw error;
      },
    );
    if (!row) return reply.code(404).type('text/html; charset=utf-8').send(SHARE_PAGE_GONE);
    const html = await renderSharePage(options.distDir, {
      title: row.name,
      pageUrl: `${baseUrlOf(publicBaseUrl, request)}${request.url.split('?')[0]}`,
      baseUrl: baseUrlOf(publicBaseUrl, request),
    });
    if (html === undefined) {
      return reply.code(503).type('text/plain; charset=utf-8').send('The Vitrine web viewer is not built.\n');
    }
    return reply.type('text/html; charset=utf-8').send(html);
  });

  app.get(
    '/:secret/models',
    {
      schema: {
        operationId: 'listSharedModels',
        tags,
        summary: 'The one model a share link opens (as a list of one, like the catalog)',
        security,
        params: SecretParams,
        response: { 200: catalogEnvelope(Type.Array(SharedModelSchema)), ...errors },
      },
    },
    async (request, reply) => {
      const { secret } = request.params;
      reply.header('cache-control', NO_REUSE);
      return { success: true as const, data: [toShared(request, secret, await openShare(secret))] };
    },
  );

  app.get(
    '/:secret/models/:id',
    {
      schema: {
        operationId: 'getSharedModel',
        tags,
        summary: 'The shared model; any other id answers 404',
        security,
        params: SharedModelParams,
        response: { 200: catalogEnvelope(SharedModelSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { secret, id } = request.params;
      reply.header('cache-control', NO_REUSE);
      return { success: true as const, data: toShared(request, secret, await openShare(secret, id)) };
    },
  );

  app.get(
    '/:secret/models/:id/parts',
    {
      schema: {
        operationId: 'listSharedModelParts',
        tags,
        summary:
          "The shared model's parts with their bound materials; `where` and `q` filter as on /api/models; " +
          '`configuration_id` paints them with a configuration (links showing configurations only)',
        security,
        params: SharedModelParams,
        querystring: SharedPartsQuery,
        response: { 200: catalogEnvelope(SharedPartsSchema), ...errors },
      },
    },
    async (request, reply) => {
      const filter = partFilter(request.query);
      const opened = await openShare(request.params.secret, request.params.id);
      const { row, version, pinned } = opened;
      const parts = pinned
        ? await options.versions.partRows(row.id, version, filter)
        : filter
          ? await models.filteredParts(row.id, filter)
          : await models.parts(row.id);
      const groupIds = parts.map((part) => part.group_id);
      const { bound } = await sharedLookup(options, opened, groupIds, request.query.configuration_id);
      reply.header('cache-control', NO_REUSE);
      return { success: true as const, data: parts.map((part) => toPart(part, bound.get(part.group_id))) };
    },
  );

  app.get(
    '/:secret/models/:id/annotations',
    {
      schema: {
        operationId: 'listSharedModelAnnotations',
        tags,
        summary:
          "The shared model's annotations, oldest first, when the link was made with `annotations: true`",
        description: 'A link made without annotations answers 404, like any other unknown shared resource.',
        security,
        params: SharedModelParams,
        response: { 200: catalogEnvelope(Type.Array(AnnotationSchema)), ...errors },
      },
    },
    async (request, reply) => {
      const { row, annotations } = await openShare(request.params.secret, request.params.id);
      if (!annotations) throw new ApiError(404, SHARE_NOT_FOUND);
      reply.header('cache-control', NO_REUSE);
      return { success: true as const, data: await options.annotations.list(row.id) };
    },
  );

  app.get(
    '/:secret/models/:id/parts/:group_id',
    {
      schema: {
        operationId: 'getSharedModelPart',
        tags,
        summary:
          'One part of the shared model with its material and the properties read from the source file',
        security,
        params: SharedPartParams,
        response: { 200: catalogEnvelope(PartWithPropertiesSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { row, version, pinned } = await openShare(request.params.secret, request.params.id);
      const { group_id: groupId } = request.params;
      const part = pinned
        ? await options.versions.partRow(row.id, version, groupId)
        : await models.part(row.id, groupId);
      if (!part) throw new ApiError(404, SHARE_NOT_FOUND);
      const { bound } = await materials.lookup([part.group_id]);
      reply.header('cache-control', NO_REUSE);
      return { success: true as const, data: toPartWithProperties(part, bound.get(part.group_id)) };
    },
  );

  app.get(
    '/:secret/models/:id/lod/:level',
    {
      schema: {
        operationId: 'getSharedModelLod',
        tags,
        summary: 'One level of detail of the shared model, as glTF binary',
        security,
        params: SharedLodParams,
        response: { 200: binary('model/gltf-binary'), 302: STORED_FILE_REDIRECT, ...errors },
      },
    },
    async (request, reply) => {
      const row = await sharedModel(request.params.secret, request.params.id);
      const lod =
        row.status === 'completed'
          ? storedLods(row).find((candidate) => String(candidate.level) === request.params.level)
          : undefined;
      if (!lod) throw new ApiError(404, NOT_READY);
      return sendStoredFile(reply, blobs, lod.key, {
        headers: { contentType: 'model/gltf-binary' },
        cacheControl: NO_REUSE,
        expiresInSeconds: SHARED_URL_EXPIRES_SECONDS,
      });
    },
  );

  // A link's configurations and their files, resolved through the secret like every route here.
  await fastify.register(sharedConfigurationRoutes, {
    openShare,
    configurations: options.configurations,
    blobs,
    exportFile: options.exportFile,
    publicBaseUrl,
    cacheControl: NO_REUSE,
    expiresInSeconds: SHARED_URL_EXPIRES_SECONDS,
  });

  // The tileset's files, each resolved through the secret like every route here.
  await fastify.register(sharedTilesetRoutes, {
    sharedModel,
    blobs,
    cacheControl: NO_REUSE,
    expiresInSeconds: SHARED_URL_EXPIRES_SECONDS,
  });

  app.get(
    '/:secret/models/:id/thumbnail',
    {
      schema: {
        operationId: 'getSharedModelThumbnail',
        tags,
        summary: "The shared model's thumbnail image",
        security,
        params: SharedModelParams,
        response: { 200: binary('image/png or image/jpeg'), 302: STORED_FILE_REDIRECT, ...errors },
      },
    },
    async (request, reply) => {
      const row = await sharedModel(request.params.secret, request.params.id);
      const key = row.thumbnail_key;
      if (!key) throw new ApiError(404, 'Thumbnail not found');
      return sendStoredFile(reply, blobs, key, {
        headers: { contentType: key.endsWith('.png') ? 'image/png' : 'image/jpeg' },
        cacheControl: NO_REUSE,
        expiresInSeconds: SHARED_URL_EXPIRES_SECONDS,
      });
    },
  );
};
