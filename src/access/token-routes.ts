import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import {
  catalogEnvelope,
  CatalogErrorSchema,
  CatalogMessageSchema,
  CATALOG_FAMILY,
} from '../http/catalog-family.ts';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import { grantOf, scopeOf } from '../http/auth/request-scope.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import type { TokenRepository } from './token-repository.ts';
import {
  ApiTokenSchema,
  CreatedTokenSchema,
  CreateTokenBody,
  CurrentTokenSchema,
  MAX_TOKEN_NAME_LENGTH,
  TokenIdParams,
} from './token-schemas.ts';

/** What the token routes need from the app. */
export interface TokenRoutesOptions {
  tokens: TokenRepository;
  checkToken: TokenChecker;
  /**
   * Runs after a token is revoked, before the answer: this process ends what the token had opened (event streams,
   * signed file URLs).
   */
  onRevoked?: (tokenId: string) => Promise<void>;
}

const tags = ['tokens'];
const errors = { 400: CatalogErrorSchema, 401: CatalogErrorSchema, 403: CatalogErrorSchema };

/**
 * Token management at `/api/tokens`, for the admin token only (the access check refuses scoped tokens). It
 * answers in the catalog's envelope: `{success:true,data}` and `{success:false,error}`.
 */
export const tokenRoutes: FastifyPluginAsync<TokenRoutesOptions> = async (
  fastify,
  { tokens, checkToken, onRevoked },
) => {
  installApiFamily(fastify, {
    checkToken,
    ...CATALOG_FAMILY,
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      schema: {
        operationId: 'createToken',
        tags,
        summary: 'Create a read or write token (admin token only); its secret is shown in this answer only',
        body: CreateTokenBody,
        response: { 201: catalogEnvelope(CreatedTokenSchema), ...errors },
      },
    },
    async (request, reply) => {
      const name = request.body.name.trim();
      if (name.length === 0 || name.length > MAX_TOKEN_NAME_LENGTH) {
        throw new ApiError(400, `name must be a string of 1 to ${MAX_TOKEN_NAME_LENGTH} characters`);
      }
      const expiresAt = request.body.expires_at ?? null;
      if (expiresAt !== null && Date.parse(expiresAt) <= Date.now()) {
        throw new ApiError(400, 'expires_at must be in the future');
      }
      const created = await tokens.create({
        name,
        scope: request.body.scope,
        expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
      });
      return reply.code(201).send({ success: true as const, data: created });
    },
  );

  app.get(
    '/',
    {
      schema: {
        operationId: 'listTokens',
        tags,
        summary: 'List the scoped tokens, oldest first, without their secrets (admin token only)',
        response: { 200: catalogEnvelope(Type.Array(ApiTokenSchema)), ...errors },
      },
    },
    async () => ({ success: true as const, data: await tokens.list() }),
  );

  app.get(
    '/current',
    {
      schema: {
        operationId: 'getCurrentToken',
        tags,
        summary: "The caller's own token: its scope, and for a scoped token its id and name (any token)",
        response: { 200: catalogEnvelope(CurrentTokenSchema), 401: CatalogErrorSchema },
      },
    },
    async (request) => {
      // Every request here passed the family's token check, which notes the scope it admitted.
      const scope = scopeOf(request);
      if (scope === undefined) throw new ApiError(401, 'missing API token');
      const id = grantOf(request) ?? null;
      const name = id === null ? null : await tokens.nameOf(id);
      return { success: true as const, data: { scope, id, name } };
    },
  );

  app.delete(
    '/:id',
    {
      schema: {
        operationId: 'deleteToken',
        tags,
        summary: 'Revoke a token at once (admin token only)',
        params: TokenIdParams,
        response: { 200: CatalogMessageSchema, ...errors, 404: CatalogErrorSchema },
      },
    },
    async (request) => {
      if (!(await tokens.delete(request.params.id))) throw new ApiError(404, 'Token not found');
      await onRevoked?.(request.params.id);
      return { success: true as const, message: 'Token revoked' };
    },
  );
};
