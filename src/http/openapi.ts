import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** Serves the OpenAPI 3 document built from the route schemas, and Swagger UI over it at `/docs`. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Vitrine',
        version: '0.1.0',
        description:
          'Model catalog (`/api/models`), material service (`/api/v1`) and token management (`/api/tokens`). Every `/api/` route needs the `X-API-Token` header: the admin token, or a scoped token (`read`: every GET and `POST /api/v1/groups/materials`; `write`: all but `/api/tokens`).',
      },
      components: {
        securitySchemes: { apiToken: { type: 'apiKey', in: 'header', name: 'X-API-Token' } },
      },
      security: [{ apiToken: [] }],
      tags: [
        { name: 'models', description: 'Model catalog' },
        { name: 'materials', description: 'Materials and their bindings to group ids' },
        { name: 'shares', description: 'Public links to one model, their page data and oEmbed' },
        { name: 'tokens', description: 'Scoped read and write tokens (admin token only)' },
        { name: 'health', description: 'Liveness' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
}
