import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UrlFor } from '../http/files/request-file-urls.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { ModelRepository } from '../catalog/repository.ts';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { AnnounceBindings } from '../events/announcers.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import { createConfigurationRepository } from './repository.ts';
import { configurationRoutes } from './routes.ts';

/** What the configuration routes need from the app. */
export interface ConfigurationsOptions {
  database: DatabaseHandle;
  models: ModelRepository;
  events: EventPublisher;
  checkToken: TokenChecker;
  /** The material service's announcement of a bind: `bindings.changed` and the thumbnail refresh. */
  announceBindings: AnnounceBindings;
  blobs: BlobStore;
  /** Resolves blob keys to the signed URLs this request's client should use. */
  urlFor(request: FastifyRequest): UrlFor;
  /** Removes what other features keep of a deleted configuration (its cached exports). */
  onDeleted(modelId: string, configurationId: string): Promise<void>;
}

/** Configurations of a model under `/api/models/:id/configurations`, beside the catalog plugin. */
export async function registerConfigurations(
  app: FastifyInstance,
  options: ConfigurationsOptions,
): Promise<void> {
  const { database, ...rest } = options;
  await app.register(configurationRoutes, {
    prefix: '/api/models',
    configurations: createConfigurationRepository(database),
    ...rest,
  });
}
