import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { storedTilesetFolder } from '../catalog/schemas.ts';
import { CatalogErrorSchema } from '../http/catalog-family.ts';
import type { ModelRow } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { sendStoredFile, STORED_FILE_REDIRECT } from '../http/files/send-stored-file.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { SharedModelParams, SharedTileParams } from './share-schemas.ts';

/** What the tileset routes under a share link need from the routes around them. */
export interface SharedTilesetRoutesOptions {
  /** The model the secret opens; throws the link's 404 when the secret is unknown or `id` names another model. */
  sharedModel: (secret: string, id: string) => Promise<ModelRow>;
  blobs: BlobStore;
  /** Cache-Control of every answer: nothing under a link is reused without asking again. */
  cacheControl: string;
  /** Life of the presigned URL a file redirects to (S3). */
  expiresInSeconds: number;
}

/** The name of a tile in a tileset's `tiles/` folder (`0-1-0.glb`): nothing else there is served. */
const TILE_NAME = /^[0-9]+(-[0-9]+)*\.glb$/;
/** The tileset's own file, beside its `tiles/`. */
const TILESET_FILE_NAME = 'tileset.json';

/** A streamed file in the OpenAPI document. */
const binary = (description: string) =>
  Type.Unsafe<unknown>({ type: 'string', format: 'binary', description });

const tags = ['shares'];
const errors = { 400: CatalogErrorSchema, 404: CatalogErrorSchema };
// No token: the secret in the path is the credential.
const security: [] = [];

/**
 * `/s/<secret>/models/<id>/tileset/tileset.json` and the tiles its relative URIs name
 * (`…/tileset/tiles/<tile>.glb`): the shared model's 3D Tiles tileset and nothing else of its folder, for that
 * secret's model alone.
 */
export const sharedTilesetRoutes: FastifyPluginAsync<SharedTilesetRoutesOptions> = async (
  fastify,
  options,
) => {
  const { sharedModel, blobs } = options;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  /** Sends one file of the shared model's tileset; 404 for a model without one or a file it does not have. */
  const sendTilesetFile = async (reply: FastifyReply, row: ModelRow, file: string) => {
    const folder = storedTilesetFolder(row);
    if (!folder || !(await blobs.head(`${folder}${file}`))) throw new ApiError(404, 'Tileset file not found');
    return sendStoredFile(reply, blobs, `${folder}${file}`, {
      headers: { contentType: file.endsWith('.json') ? 'application/json' : 'model/gltf-binary' },
      cacheControl: options.cacheControl,
      expiresInSeconds: options.expiresInSeconds,
    });
  };

  app.get(
    '/:secret/models/:id/tileset/tileset.json',
    {
      schema: {
        operationId: 'getSharedModelTileset',
        tags,
        summary:
          "The shared model's 3D Tiles tileset (its `tileset_url`); its tiles lie under `tiles/` beside it",
        security,
        params: SharedModelParams,
        response: { 200: binary('application/json'), 302: STORED_FILE_REDIRECT, ...errors },
      },
    },
    async (request, reply) => {
      const row = await sharedModel(request.params.secret, request.params.id);
      return sendTilesetFile(reply, row, TILESET_FILE_NAME);
    },
  );

  app.get(
    '/:secret/models/:id/tileset/tiles/:tile',
    {
      schema: {
        operationId: 'getSharedModelTile',
        tags,
        summary: "One tile of the shared model's tileset, as its `tileset.json` names it (`0-1-0.glb`)",
        security,
        params: SharedTileParams,
        response: { 200: binary('model/gltf-binary'), 302: STORED_FILE_REDIRECT, ...errors },
      },
    },
    async (request, reply) => {
      const row = await sharedModel(request.params.secret, request.params.id);
      if (!TILE_NAME.test(request.params.tile)) throw new ApiError(404, 'Tileset file not found');
      return sendTilesetFile(reply, row, `tiles/${request.params.tile}`);
    },
  );
};
