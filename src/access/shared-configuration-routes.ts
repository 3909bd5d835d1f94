import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ConfigurationRepository } from '../configurations/repository.ts';
import type { ModelRow } from '../db/database.ts';
import { EXPORT_RETRY_AFTER_SECONDS } from '../exports/schemas.ts';
import { ApiError } from '../http/api-error.ts';
import { catalogEnvelope, CatalogErrorSchema } from '../http/catalog-family.ts';
import { sendStoredFile, STORED_FILE_REDIRECT } from '../http/files/send-stored-file.ts';
import type { MaterialRepository, LookupResult } from '../materials/repository.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import {
  SHARE_NOT_FOUND,
  SharedConfigurationParams,
  SharedConfigurationSchema,
  SharedModelParams,
} from './share-schemas.ts';
import { baseUrlOf, SHARE_PREFIX } from './share-urls.ts';

/** What a secret opens, as far as its configurations go. */
export interface OpenedForConfigurations {
  row: ModelRow;
  /** Whether the link was made with `configurations: true`. */
  configurations: boolean;
  /** True when the link serves a version that is not the model's current one. */
  pinned: boolean;
}

/** Where a configuration's export stands: its stored file, or still being made. */
export type ConfigurationFileState =
  | { status: 'ready'; blobKey: string; size: number; fileName: string; contentType: string }
  | { status: 'queued' | 'running' };

/** The files a link offers of a configuration: its GLB, and its USDZ for AR Quick Look. */
export const CONFIGURATION_FILE_FORMATS = ['glb', 'usdz'] as const;

/**
 * Starts or finds the export of a configuration of `model` (its finest level, `materials=bound`); throws the 404
 * or 422 a client is answered. Given by the app, which owns the exports.
 */
export type ExportConfigurationFile = (
  model: ModelRow,
  configurationId: string,
  format: (typeof CONFIGURATION_FILE_FORMATS)[number],
) => Promise<ConfigurationFileState>;

/** What the configuration routes under a share link need. */
export interface SharedConfigurationRoutesOptions {
  /** The model the secret opens; 404 when the secret is unknown or `id` names another model. */
  openShare(secret: string, id: string): Promise<OpenedForConfigurations>;
  configurations: ConfigurationRepository;
  blobs: BlobStore;
  exportFile: ExportConfigurationFile;
  publicBaseUrl: string | undefined;
  cacheControl: string;
  expiresInSeconds: number;
}

/**
 * The parts' materials a link shows: the present bindings, or with `configurationId` that configuration's over
 * them (404 unless the link shows configurations and the configuration is its model's).
 */
export async function sharedLookup(
  { materials, configurations }: { materials: MaterialRepository; configurations: ConfigurationRepository },
  opened: OpenedForConfigurations,
  groupIds: string[],
  configurationId: string | undefined,
): Promise<LookupResult> {
  if (configurationId === undefined) return materials.lookup(groupIds);
  if (!opened.configurations || !(await configurations.get(opened.row.id, configurationId))) {
    throw new ApiError(404, SHARE_NOT_FOUND);
  }
  const result = await materials.lookupConfigured(groupIds, configurationId);
  if (!result) throw new ApiError(404, SHARE_NOT_FOUND);
  return result;
}

const tags = ['shares'];
const security: [] = [];
const errors = { 400: CatalogErrorSchema, 404: CatalogErrorSchema };
const binary = (description: string) =>
  Type.Unsafe<unknown>({ type: 'string', format: 'binary', description });

/**
 * `/s/<secret>/models/<id>/configurations…`: the model's configurations, read-only, their thumbnails and each
 * one's GLB and USDZ. Only a link made with `configurations: true` answers; any other answers 404, as for
 * anything a link does not open.
 */
export const sharedConfigurationRoutes: FastifyPluginAsync<SharedConfigurationRoutesOptions> = async (
  fastify,
  options,
) => {
  const { configurations, blobs, cacheControl, expiresInSeconds } = options;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const opened = async (secret: string, id: string) => {
    const share = await options.openShare(secret, id);
    if (!share.configurations) throw new ApiError(404, SHARE_NOT_FOUND);
    return share;
  };
  const configurationOf = async (params: { secret: string; id: string; cid: string }) => {
    const share = await opened(params.secret, params.id);
    const configuration = await configurations.get(share.row.id, params.cid);
    if (!configuration) throw new ApiError(404, SHARE_NOT_FOUND);
    return { share, configuration };
  };
  const baseOf = (request: FastifyRequest, secret: string, modelId: string) =>
    `${baseUrlOf(options.publicBaseUrl, request)}${SHARE_PREFIX}${secret}/models/${modelId}/configurations`;

  app.get(
    '/:secret/models/:id/configurations',
    {
      schema: {
        operationId: 'listSharedModelConfigurations',
        tags,
        summary: "The shared model's configurations, oldest first, when the link shows them",
        description: 'A link made without `configurations: true` answers 404.',
        security,
        params: SharedModelParams,
        response: { 200: catalogEnvelope(Type.Array(SharedConfigurationSchema)), ...errors },
      },
    },
    async (request, reply) => {
      const { secret, id } = request.params;
      const share = await opened(secret, id);
      const base = baseOf(request, secret, share.row.id);
      const list = await configurations.list(share.row.id);
      reply.header('cache-control', cacheControl);
      return {
        success: true as const,
        data: list.map((configuration) => ({
          id: configuration.id,
          name: configuration.name,
          description: configuration.description,
          thumbnail_url: configuration.thumbnail_key ? `${base}/${configuration.id}/thumbnail` : null,
        })),
      };
    },
  );

  app.get(
    '/:secret/models/:id/configurations/:cid/thumbnail',
    {
      schema: {
        operationId: 'getSharedConfigurationThumbnail',
        tags,
        summary: 'The thumbnail of a configuration of the shared model',
        security,
        params: SharedConfigurationParams,
        response: { 200: binary('image/png or image/jpeg'), 302: STORED_FILE_REDIRECT, ...errors },
      },
    },
    async (request, reply) => {
      const key = (await configurationOf(request.params)).configuration.thumbnail_key;
      if (!key) throw new ApiError(404, 'Thumbnail not found');
      return sendStoredFile(reply, blobs, key, {
        headers: { contentType: key.endsWith('.png') ? 'image/png' : 'image/jpeg' },
        cacheControl,
        expiresInSeconds,
      });
    },
  );

  for (const format of CONFIGURATION_FILE_FORMATS) {
    app.get(
      `/:secret/models/:id/configurations/:cid/model.${format}`,
      {
        schema: {
          operationId: format === 'glb' ? 'getSharedConfigurationGlb' : 'getSharedConfigurationUsdz',
          tags,
          summary: `A configuration of the shared model as ${format === 'glb' ? 'glTF binary' : 'USDZ (AR Quick Look)'}`,
          description:
            'The export of the configuration (`materials=bound`, finest level). The first call starts it and ' +
            'answers 202 with `Retry-After`; once made, 200 with the file. The model’s current version only: a ' +
            'link pinning another answers 404.',
          security,
          params: SharedConfigurationParams,
          response: {
            200: binary(format === 'glb' ? 'model/gltf-binary' : 'model/vnd.usdz+zip'),
            202: catalogEnvelope(Type.Object({ status: Type.String() })),
            302: STORED_FILE_REDIRECT,
            422: CatalogErrorSchema,
            ...errors,
          },
        },
      },
      async (request, reply) => {
        const { share, configuration } = await configurationOf(request.params);
        // Exports are made from the current version's levels; a pinned older one has no such file.
        if (share.pinned) throw new ApiError(404, SHARE_NOT_FOUND);
        const file = await options.exportFile(share.row, configuration.id, format);
        if (file.status !== 'ready') {
          reply.code(202).header('retry-after', String(EXPORT_RETRY_AFTER_SECONDS));
          reply.header('cache-control', 'no-store');
          return { success: true as const, data: { status: file.status } };
        }
        if (!blobs.signedUrl) reply.header('content-length', file.size);
        return sendStoredFile(reply, blobs, file.blobKey, {
          headers: {
            contentType: file.contentType,
            contentDisposition: `inline; filename="${file.fileName}"`,
          },
          cacheControl,
          expiresInSeconds,
        });
      },
    );
  }
};
