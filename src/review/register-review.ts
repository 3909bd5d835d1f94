import type { FastifyInstance } from 'fastify';
import type { ModelRepository } from '../catalog/repository.ts';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { annotationRoutes } from './annotation-routes.ts';
import { bcfRoutes } from './bcf-routes.ts';
import { createAnnotationRepository } from './repository.ts';
import { createTopicRepository } from './topic-repository.ts';
import { createViewRepository } from './view-repository.ts';
import { viewRoutes } from './view-routes.ts';

/** What the review routes need from the app. */
export interface ReviewOptions {
  database: DatabaseHandle;
  models: ModelRepository;
  /** Where the model's files are (the BCF import reads LOD 0's node tree). */
  blobs: BlobStore;
  events: EventPublisher;
  checkToken: TokenChecker;
  /** The name of a scoped token by its id (the author of what it writes), or null when it is gone. */
  tokenName(tokenId: string): Promise<string | null>;
}

/**
 * Review of a model under `/api/models/:id`: annotations pinned to parts, saved views and their BCF 3.0 export and
 * import, each beside the catalog plugin so unknown paths still reach the catalog's 404.
 */
export async function registerReview(app: FastifyInstance, options: ReviewOptions): Promise<void> {
  const routeOptions = {
    prefix: '/api/models',
    models: options.models,
    annotations: createAnnotationRepository(options.database),
    views: createViewRepository(options.database),
    topics: createTopicRepository(options.database),
    blobs: options.blobs,
    events: options.events,
    checkToken: options.checkToken,
    tokenName: options.tokenName,
  };
  await app.register(annotationRoutes, routeOptions);
  await app.register(viewRoutes, routeOptions);
  await app.register(bcfRoutes, routeOptions);
}
