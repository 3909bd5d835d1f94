import type { Config } from './config.ts';
import { startJobRunner } from './job-runner.ts';
import { createLogger } from './logger.ts';
import { openServices, sweepAtStart } from './services.ts';

/**
 * Runs only the job runner, for scaling conversions out to other processes or machines. Nothing here (or below
 * it) imports HTTP code, so a worker process never loads Fastify.
 */
export async function startWorkerProcess(config: Config): Promise<{ close(): Promise<void> }> {
  const logger = createLogger(config.logLevel);
  const services = await openServices(config, { logger, leaseMs: config.jobLeaseMs });
  await sweepAtStart(config, services, logger);
  const runner = startJobRunner(config, services, logger);
  logger.info({ concurrency: config.jobConcurrency }, 'worker started');
  return {
    async close() {
      await runner.stop();
      await services.close();
    },
  };
}
