import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { ModelRepository } from '../catalog/repository.ts';
import { MODEL_NOT_FOUND, ModelIdParams } from '../catalog/schemas.ts';
import {
  catalogEnvelope,
  CatalogErrorSchema,
  CatalogMessageSchema,
  CATALOG_FAMILY,
} from '../http/catalog-family.ts';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import type { VersionRepository } from '../catalog/versions/repository.ts';
import type { ShareRepository, StoredShare } from './share-repository.ts';
import { CreateShareBody, ShareIdParams, ShareSchema, type Share } from './share-schemas.ts';
import { baseUrlOf, sharePageUrl } from './share-urls.ts';

/** What the share management routes need from the app. */
export interface ShareRoutesOptions {
  models: ModelRepository;
  shares: ShareRepository;
  /** The versions a link may pin. */
  versions: VersionRepository;
  checkToken: TokenChecker;
  /** Base of handed-out URLs; derived from the request when undefined. */
  publicBaseUrl: string | undefined;
}

const tags = ['shares'];
const errors = {
  400: CatalogErrorSchema,
  401: CatalogErrorSchema,
  403: CatalogErrorSchema,
  404: CatalogErrorSchema,
};

/**
 * `/api/models/:id/shares`: create, list and revoke a model's public links, in the catalog's envelope. It sits
 * beside the catalog plugin under the same prefix, so unknown paths still reach the catalog's 404.
 */
export const shareRoutes: FastifyPluginAsync<ShareRoutesOptions> = async (fastify, options) => {
  const { models, shares, versions, checkToken, publicBaseUrl } = options;
  installApiFamily(fastify, {
    checkToken,
    ...CATALOG_FAMILY,
    // Unknown paths under the prefix answer the catalog's own 404, set where the catalog is mounted.
    notFoundMessage: undefined,
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const existing = async (id: string) => {
    if (!(await models.get(id))) throw new ApiError(404, MODEL_NOT_FOUND);
  };
  const toShare = (baseUrl: string, share: StoredShare): Share => ({
    id: share.id,
    url: sharePageUrl(baseUrl, share.secret),
    annotations: share.annotations,
    configurations: share.configurations,
    version: share.version,
    created_at: share.created_at,
  });

  app.post(
    '/:id/shares',
    {
      schema: {
        operationId: 'createShare',
        tags,
        summary: 'Create a public link to the model: a page showing it, with no token, and nothing else',
        description:
          'The body is optional; `{"annotations": true}` lets the page show the annotations, read-only; ' +
          '`{"configurations": true}` lets it show the model\'s configurations, read-only, with their GLB and ' +
          'USDZ files (for AR); `{"version": n}` pins version n of the model (400 when the model has no such version).',
        params: ModelIdParams,
        body: CreateShareBody,
        response: { 201: catalogEnvelope(ShareSchema), ...errors },
      },
      // The body is optional: a bare POST (no body at all) creates a link without annotations.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      await existing(request.params.id);
      const version = request.body.version ?? null;
      if (version !== null && !(await versions.get(request.params.id, version))) {
        throw new ApiError(400, `The model has no version ${version}`);
      }
      const share = await shares.create(request.params.id, {
        annotations: request.body.annotations ?? false,
        configurations: request.body.configurations ?? false,
        version,
      });
      return reply
        .code(201)
        .send({ success: true as const, data: toShare(baseUrlOf(publicBaseUrl, request), share) });
    },
  );

  app.get(
    '/:id/shares',
    {
      schema: {
        operationId: 'listShares',
        tags,
        summary:
          "The model's public links, oldest first (a read token is refused: each URL holds the link's secret)",
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Array(ShareSchema)), ...errors },
      },
    },
    async (request) => {
      await existing(request.params.id);
      const baseUrl = baseUrlOf(publicBaseUrl, request);
      const list = await shares.list(request.params.id);
      return { success: true as const, data: list.map((share) => toShare(baseUrl, share)) };
    },
  );

  app.delete(
    '/:id/shares/:share_id',
    {
      schema: {
        operationId: 'deleteShare',
        tags,
        summary: 'Revoke a public link: its page and every address under it answer 404 at once',
        params: ShareIdParams,
        response: { 200: CatalogMessageSchema, ...errors },
      },
    },
    async (request) => {
      const { id, share_id } = request.params;
      await existing(id);
      if (!(await shares.delete(id, share_id))) throw new ApiError(404, 'Share link not found');
      return { success: true as const, message: 'Share link revoked' };
    },
  );
};
