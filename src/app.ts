import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/create-db.ts';
import { createTokenChecker } from './http/auth.ts';
import { registerOpenApi } from './http/openapi.ts';
import { createValidatorCompiler } from './http/validator-compiler.ts';
import { createMaterialRepository } from './materials/repository.ts';
import { materialRoutes } from './materials/routes.ts';

/** What the app is built from; the caller owns these and closes them. */
export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  /** The token `X-API-Token` must carry. */
  apiToken: string;
}

/** Builds the HTTP app without listening, so tests drive it with `app.inject`. */
export async function buildApp({ config, database, apiToken }: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel, redact: ['req.headers["x-api-token"]'] },
    // Long enough for a slow client to finish a large upload; headers must still arrive promptly.
    requestTimeout: 0,
    connectionTimeout: 0,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  app.setValidatorCompiler(createValidatorCompiler());
  await registerOpenApi(app);

  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness check (no token)',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  const checkToken = createTokenChecker(apiToken);
  await app.register(materialRoutes, {
    prefix: '/api/v1',
    repository: createMaterialRepository(database),
    checkToken,
  });

  return app;
}
