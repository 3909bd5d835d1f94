import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema } from 'fastify';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The fields of a `multipart/form-data` body, for the OpenAPI document only: the route reads the stream
     * itself, so Fastify must not validate a body it never parses.
     */
    multipartBody?: TSchema;
  }
}

/** What the document needs from the configuration. */
export interface OpenApiOptions {
  /** The public base URL, named as the server when set; otherwise the document's own origin serves. */
  publicBaseUrl?: string;
  /** The service's version, as package.json has it. */
  version: string;
}

/** Serves the OpenAPI 3 document built from the route schemas, and Swagger UI over it at `/docs`. */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Vitrine',
        version: options.version,
        description:
          'Model catalog (`/api/models`), material service (`/api/v1`) and token management (`/api/tokens`). Every `/api/` route needs the `X-API-Token` header: the admin token, or a scoped token (`read`: every GET and `POST /api/v1/groups/materials`; `write`: all but `/api/tokens`). Large files can be sent resumably with the tus 1.0 protocol at `/api/uploads` (same token), then made a model with `POST /api/models` and `{"upload_id"}`.',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      },
      servers: [{ url: options.publicBaseUrl ?? '/' }],
      components: {
        securitySchemes: { apiToken: { type: 'apiKey', in: 'header', name: 'X-API-Token' } },
      },
      security: [{ apiToken: [] }],
      tags: [
        { name: 'models', description: 'Model catalog' },
        { name: 'materials', description: 'Materials and their bindings to group ids' },
        { name: 'shares', description: 'Public links to one model, their page data and oEmbed' },
        {
          name: 'review',
          description: 'Annotations pinned to parts, saved views, BCF 3.0 export and import',
        },
        { name: 'tokens', description: 'Scoped read and write tokens (admin token only)' },
        { name: 'health', description: 'Liveness' },
      ],
    },
    // The routes are mounted at the root whatever the public URL's path is.
    stripBasePath: false,
    transform: ({ schema, url }) => ({ schema: documentedSchema(schema), url: documentedUrl(url) }),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
}

/**
 * A collection route registered as `/` under its prefix answers with and without the trailing slash; the
 * document names it once, without (`/api/models`), as the specifications write it.
 */
function documentedUrl(url: string): string {
  return url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
}

/**
 * The route's schema as documented: a multipart body's fields become its request body, before a JSON body the
 * route also takes (declared per content type). Swagger UI offers the first content type first, and an upload is
 * tried as a form far more often than as a finished resumable upload's JSON.
 */
function documentedSchema(schema: FastifySchema): FastifySchema {
  if (!schema?.multipartBody) return schema;
  const { multipartBody, ...rest } = schema;
  const content = (rest.body as { content?: Record<string, unknown> } | undefined)?.content;
  if (!content) return { ...rest, body: { content: { 'multipart/form-data': { schema: multipartBody } } } };
  return { ...rest, body: { content: { 'multipart/form-data': { schema: multipartBody }, ...content } } };
}
