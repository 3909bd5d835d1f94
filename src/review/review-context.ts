import type { FastifyRequest } from 'fastify';
import type { ModelRepository } from '../catalog/repository.ts';
import { MODEL_NOT_FOUND } from '../catalog/schemas.ts';
import type { ModelPartRow, ModelRow } from '../db/database.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import { ApiError } from '../http/api-error.ts';
import { grantOf } from '../http/auth/request-scope.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { AnnotationRepository } from './repository.ts';
import type { TopicRepository } from './topic-repository.ts';
import type { ViewRepository } from './view-repository.ts';

/** What the review routes need from the app. */
export interface ReviewRoutesOptions {
  models: ModelRepository;
  annotations: AnnotationRepository;
  views: ViewRepository;
  topics: TopicRepository;
  /** Where the model's files are: the import reads LOD 0's node tree to turn an aggregate into its parts. */
  blobs: BlobStore;
  events: EventPublisher;
  checkToken: TokenChecker;
  /** The name of a scoped token by its id, or null when it is gone. */
  tokenName(tokenId: string): Promise<string | null>;
}

/** The model, or a 404 in the catalog's words. */
export async function existingModel(models: ModelRepository, id: string): Promise<ModelRow> {
  const row = await models.get(id);
  if (!row) throw new ApiError(404, MODEL_NOT_FOUND);
  return row;
}

/** The author of what a request writes: its scoped token's name, or null for the admin token. */
export async function authorOf(
  options: ReviewRoutesOptions,
  request: FastifyRequest,
): Promise<string | null> {
  const grant = grantOf(request);
  return grant === undefined ? null : options.tokenName(grant);
}

/** The part of `parts` with this group id, or a 400 saying the model has no such part. */
export function partOf(parts: readonly ModelPartRow[], groupId: string): ModelPartRow {
  const part = parts.find((candidate) => candidate.group_id === groupId);
  if (!part) {
    throw new ApiError(
      400,
      parts.length === 0
        ? `group_id "${groupId}" is not a part of the model: it has no parts (it is not converted yet)`
        : `group_id "${groupId}" is not a part of the model (see GET /api/models/:id/parts)`,
    );
  }
  return part;
}
