import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { resolveApiToken } from './http/api-token.ts';
import type { QueueConsumer } from './jobs/queue.ts';
import { createLogger } from './logger.ts';
import { openServices, sweepAtStart } from './services.ts';
import { startJobRunner } from './job-runner.ts';

/** A listening service and how to stop it. */
export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, finishes in-flight requests, hands running jobs back, then closes the database. */
  close(): Promise<void>;
}

/** Opens everything, builds the app and listens; with `withWorker` it also runs conversions in this process. */
export async function startServer(config: Config, options: { withWorker: boolean }): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const services = await openServices(config, { logger, leaseMs: config.jobLeaseMs });
  await sweepAtStart(config, services, logger);
  const token = resolveApiToken(config.dataDir, config.apiToken);
  const app = await buildApp({ config, ...services, apiToken: token.token, logger });
  let worker: QueueConsumer | undefined;
  try {
    const address = await app.listen({ port: config.port, host: config.host });
    worker = options.withWorker ? startJobRunner(config, services, logger) : undefined;
    const url = address.replace('://[::1]', '://localhost');
    const tokenLine =
      token.source === 'env'
        ? 'API token: from API_TOKEN'
        : `API token: ${token.token}   (kept in ${token.file})`;
    process.stdout.write(
      `\nVitrine is running at ${url}\n  ${tokenLine}\n  Viewer:    ${url}/\n  API docs:  ${url}/docs\n` +
        `  Worker:    ${worker ? 'embedded (conversions run in this process)' : 'none (run `vitrine worker`)'}\n\n`,
    );
    return {
      app,
      url,
      async close() {
        await app.close();
        await worker?.stop();
        await services.close();
      },
    };
  } catch (error) {
    await app.close();
    await services.close();
    throw error;
  }
}
