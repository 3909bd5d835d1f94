import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { resolveApiToken } from './http/api-token.ts';
import type { JobWorker } from './jobs/queue.ts';
import { createLogger } from './logger.ts';
import { openServices } from './services.ts';
import { startJobWorker } from './worker.ts';
import { sweepLeftovers } from './storage/sweep-leftovers.ts';
import type { AppLogger } from './logger.ts';
import type { Services } from './services.ts';

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
  let worker: JobWorker | undefined;
  try {
    const address = await app.listen({ port: config.port, host: config.host });
    worker = options.withWorker ? startJobWorker(config, services, logger) : undefined;
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

/** Runs only the job worker (no HTTP), for scaling conversions out to other processes or machines. */
export async function startWorkerProcess(config: Config): Promise<{ close(): Promise<void> }> {
  const logger = createLogger(config.logLevel);
  const services = await openServices(config, { logger, leaseMs: config.jobLeaseMs });
  await sweepAtStart(config, services, logger);
  const worker = startJobWorker(config, services, logger);
  logger.info({ concurrency: config.workerConcurrency }, 'worker started');
  return {
    async close() {
      await worker.stop();
      await services.close();
    },
  };
}

/** Removes what killed processes left (job folders, partial uploads and files) before this one starts working. */
async function sweepAtStart(config: Config, services: Services, logger: AppLogger): Promise<void> {
  try {
    const removed = await sweepLeftovers({ dataDir: config.dataDir, storeRoot: services.blobs.localRoot });
    if (removed.length > 0) logger.info({ removed }, 'removed left-overs of stopped processes');
  } catch (error) {
    // A sweep that cannot finish must not stop the service; the next start tries again.
    logger.warn({ err: error }, 'left-over sweep failed');
  }
}
