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
          'Model catalog (`/api/models`) and material service (`/api/v1`). Every `/api/` route needs the `X-API-Token` header.',
      },
      components: {
        securitySchemes: { apiToken: { type: 'apiKey', in: 'header', name: 'X-API-Token' } },
      },
      security: [{ apiToken: [] }],
      tags: [
        { name: 'models', description: 'Model catalog' },
        { name: 'materials', description: 'Materials and their bindings to group ids' },
        { name: 'health', description: 'Liveness' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
}
