import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { createDb, type DatabaseHandle } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import { resolveApiToken } from './http/api-token.ts';

/** A listening service and how to stop it. */
export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, finishes in-flight requests, then closes the database. */
  close(): Promise<void>;
}

/** Opens the database (migrating it), resolves the token, builds the app and listens. */
export async function startServer(config: Config): Promise<RunningServer> {
  const database: DatabaseHandle = createDb(config.databaseUrl);
  await migrateToLatest(database.db);
  const token = resolveApiToken(config.dataDir, config.apiToken);
  const app = await buildApp({ config, database, apiToken: token.token });
  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('://[::1]', '://localhost');

  const tokenLine =
    token.source === 'env'
      ? 'API token: from API_TOKEN'
      : `API token: ${token.token}   (kept in ${token.file})`;
  process.stdout.write(`\nVitrine is running at ${url}\n  ${tokenLine}\n  API docs:  ${url}/docs\n\n`);

  return {
    app,
    url,
    async close() {
      await app.close();
      await database.close();
    },
  };
}
