import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { ModelRepository } from '../catalog/repository.ts';
import { CatalogErrorSchema } from '../http/catalog-family.ts';
import { ApiError } from '../http/api-error.ts';
import { installPublicErrors } from './public-errors.ts';
import { escapeHtml } from './share-page.ts';
import type { ShareRepository } from './share-repository.ts';
import { baseUrlOf, secretOfShareUrl, sharePageUrl } from './share-urls.ts';

/** What the oEmbed route needs from the app. */
export interface OEmbedRoutesOptions {
  models: ModelRepository;
  shares: ShareRepository;
  /** Base of handed-out URLs; derived from the request when undefined. */
  publicBaseUrl: string | undefined;
}

/** Size of the iframe when the consumer sets no bounds. */
export const EMBED_DEFAULT_SIZE = { width: 640, height: 480 };
/** Smallest iframe worth offering; smaller bounds are raised to it. */
const EMBED_MIN_SIZE = 100;

const OEmbedQuery = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  format: Type.Optional(Type.String({ maxLength: 16 })),
  maxwidth: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  maxheight: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
});

const OEmbedSchema = Type.Object({
  version: Type.Literal('1.0'),
  type: Type.Literal('rich'),
  provider_name: Type.String(),
  provider_url: Type.String(),
  title: Type.String(),
  html: Type.String({ description: 'An <iframe> of the share page in embed mode.' }),
  width: Type.Integer(),
  height: Type.Integer(),
  configurations: Type.Boolean({
    description: "Whether the link shows the model's configurations (a picker, and AR of each one).",
  }),
});

/**
 * `GET /oembed?url=<share page>`: the oEmbed 1.0 `rich` answer for a share link, whose `html` is an iframe of
 * the link's bare viewer (`?embed=1`). Only JSON is offered; `format=xml` answers 501 as the specification asks.
 */
export const oembedRoutes: FastifyPluginAsync<OEmbedRoutesOptions> = async (fastify, options) => {
  const { models, shares, publicBaseUrl } = options;
  installPublicErrors(fastify, 'Not found');
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      schema: {
        operationId: 'getOembed',
        tags: ['shares'],
        summary: 'oEmbed for a share link: an iframe of its bare viewer',
        security: [],
        querystring: OEmbedQuery,
        response: {
          200: OEmbedSchema,
          400: CatalogErrorSchema,
          404: CatalogErrorSchema,
          501: CatalogErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { url, format, maxwidth, maxheight } = request.query;
      if (format !== undefined && format !== 'json') throw new ApiError(501, 'only format=json is offered');
      const baseUrl = baseUrlOf(publicBaseUrl, request);
      const secret = secretOfShareUrl(url, baseUrl);
      const share = secret ? await shares.open(secret) : undefined;
      const model = share ? await models.get(share.model_id) : undefined;
      if (!secret || !share || !model) throw new ApiError(404, 'Share link not found');
      // The frame's title says what the page offers beyond the model, for readers of the embedding page.
      const frameTitle = share.configurations ? `${model.name} (configurations and AR)` : model.name;
      const width = Math.max(EMBED_MIN_SIZE, Math.min(EMBED_DEFAULT_SIZE.width, maxwidth ?? Infinity));
      const height = Math.max(EMBED_MIN_SIZE, Math.min(EMBED_DEFAULT_SIZE.height, maxheight ?? Infinity));
      const src = `${sharePageUrl(baseUrl, secret)}?embed=1`;
      reply.header('cache-control', 'no-store');
      return {
        version: '1.0' as const,
        type: 'rich' as const,
        provider_name: 'Vitrine',
        provider_url: `${baseUrl}/`,
        title: model.name,
        width,
        height,
        configurations: share.configurations,
        html:
          `<iframe src="${escapeHtml(src)}" width="${width}" height="${height}" title="${escapeHtml(frameTitle)}" ` +
          `style="border:0" allow="fullscreen" loading="lazy"></iframe>`,
      };
    },
  );
};
