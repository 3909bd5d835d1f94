import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../http/api-error.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import type { FileUrlSigner } from '../http/files/file-url-signer.ts';
import { requestFileUrls, type UrlFor } from '../http/files/request-file-urls.ts';
import type { MaterialRepository } from '../materials/repository.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { ModelRow } from '../db/database.ts';
import type { UploadIntake } from '../uploads/schemas.ts';
import type { CatalogService } from './catalog-service.ts';
import type { ModelRepository } from './repository.ts';
import { MODEL_NOT_FOUND, NOT_READY } from './schemas.ts';
import { CatalogErrorSchema } from '../http/catalog-family.ts';

/** What the catalog routes need from the app. */
export interface CatalogRoutesOptions {
  models: ModelRepository;
  materials: MaterialRepository;
  blobs: BlobStore;
  /** Every change that touches files or jobs goes through the service. */
  catalog: CatalogService;
  checkToken: TokenChecker;
  /** Largest model upload in bytes. */
  maxUploadBytes: number;
  /** Folder for uploads while they stream in. */
  tmpDir: string;
  /** Where uploaded files come from: multipart forms, and finished resumable uploads taken by an `upload_id`. */
  intake: UploadIntake;
  /** How long an `Idempotency-Key` of a multipart upload answers the model it made (`IDEMPOTENCY_KEY_HOURS`). */
  idempotencyWindowMs: number;
  /** Base of handed-out URLs; derived from the request when undefined. */
  publicBaseUrl: string | undefined;
  /** Signs every `/files/` URL the routes hand out, so stored files are not public by name. */
  fileUrls: FileUrlSigner;
}

/** The catalog plugin's Fastify instance, typed by its TypeBox schemas. */
export type CatalogApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** OpenAPI tag of every catalog route. */
export const CATALOG_TAGS = ['models'];
/** Error responses every catalog route declares. */
export const CATALOG_ERRORS = {
  400: CatalogErrorSchema,
  401: CatalogErrorSchema,
  404: CatalogErrorSchema,
};

/** Helpers the catalog's route files share. */
export interface CatalogRouteContext extends CatalogRoutesOptions {
  /** Resolves blob keys to the signed URLs this request's client should use, bound to its scoped token if any. */
  urlFor(request: FastifyRequest): UrlFor;
  /** The model, or a 404 with the given message. */
  existing(id: string, message?: string): Promise<ModelRow>;
  /** The model when completed, else 404 `Model not ready or not found`. */
  completed(id: string): Promise<ModelRow>;
}

/** Builds the shared helpers over the plugin's options. */
export function createRouteContext(options: CatalogRoutesOptions): CatalogRouteContext {
  const existing = async (id: string, message = MODEL_NOT_FOUND) => {
    const row = await options.models.get(id);
    if (!row) throw new ApiError(404, message);
    return row;
  };
  return {
    ...options,
    urlFor: requestFileUrls(options.fileUrls, options.publicBaseUrl),
    existing,
    async completed(id) {
      const row = await existing(id, NOT_READY);
      if (row.status !== 'completed') throw new ApiError(404, NOT_READY);
      return row;
    },
  };
}
