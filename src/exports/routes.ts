import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ModelRepository } from '../catalog/repository.ts';
import { ModelIdParams, NOT_READY } from '../catalog/schemas.ts';
import type { ConfigurationRepository } from '../configurations/repository.ts';
import type { ModelRow } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import { catalogEnvelope, CatalogErrorSchema, CATALOG_FAMILY } from '../http/catalog-family.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import type { UrlFor } from '../http/files/request-file-urls.ts';
import { sendStoredFile, STORED_FILE_REDIRECT } from '../http/files/send-stored-file.ts';
import { type ExportKey } from '../jobs/job-types.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { MaterialRepository } from '../materials/repository.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { DEFAULT_EXPORT_UNIT, EXPORT_FILES, UNIT_FORMATS } from '../writers/export-formats.ts';
import { exportFileName } from './export-job.ts';
import { createExportService } from './export-service.ts';
import type { ExportRepository } from './repository.ts';
import { EXPORT_RETRY_AFTER_SECONDS, ExportQuery, ExportSchema, type ExportState } from './schemas.ts';

/** What the export route needs from the app. */
export interface ExportRoutesOptions {
  models: ModelRepository;
  materials: MaterialRepository;
  /** The model's configurations, which an export may bake or carry as variants. */
  configurations: ConfigurationRepository;
  blobs: BlobStore;
  queue: JobQueue;
  /** State of the cached exports. */
  exports: ExportRepository;
  checkToken: TokenChecker;
  /** Resolves blob keys to the signed URLs this request's client should use, bound to its scoped token if any. */
  urlFor(request: FastifyRequest): UrlFor;
}

/** A client that asks for JSON gets the export's URL instead of its bytes (the viewer, scripts). */
function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/json');
}

const fileResponses = Object.fromEntries(
  Object.values(EXPORT_FILES).map(({ contentType }) => [
    contentType,
    { schema: { type: 'string', format: 'binary' } },
  ]),
);

/** The export a query names, or a 400 for options that do not go together. */
function exportKeyOf(modelId: string, query: ExportQuery): ExportKey {
  const format = query.format ?? 'glb';
  const materials = query.materials ?? 'bound';
  const unitFormat = UNIT_FORMATS.includes(format);
  if (query.unit !== undefined && !unitFormat) {
    throw new ApiError(
      400,
      `unit applies to ${UNIT_FORMATS.join(' and ')} only; ${format} is always in metres`,
    );
  }
  if (materials === 'variants' && format !== 'glb') {
    throw new ApiError(
      400,
      `materials=variants applies to glb only; ${format} cannot carry material variants (export one configuration with configuration=<id>)`,
    );
  }
  if (query.configuration !== undefined && materials !== 'bound') {
    throw new ApiError(400, `configuration applies to materials=bound only, not materials=${materials}`);
  }
  return {
    model_id: modelId,
    format,
    lod: Number(query.lod ?? 0) as ExportKey['lod'],
    materials,
    unit: unitFormat ? (query.unit ?? DEFAULT_EXPORT_UNIT) : 'meter',
    configuration_id: query.configuration ?? null,
  };
}

/**
 * `GET /:id/export?format=glb|usdz|obj|stl|3mf&lod=0|1|2&materials=bound|source|variants&unit=…&configuration=…`: the
 * first call queues an export job and answers 202 with its state; once the file is stored, the same call answers 200
 * with the file (or its URL, for `Accept: application/json`). The file is kept until the model, a binding of its
 * parts, or a configuration it is made from changes.
 * In the catalog's envelope, beside the catalog plugin under `/api/models`, so unknown paths still reach its 404.
 */
export const exportRoutes: FastifyPluginAsync<ExportRoutesOptions> = async (fastify, options) => {
  const { models, blobs, urlFor } = options;
  const prepare = createExportService(options);
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    ...CATALOG_FAMILY,
    // Unknown paths under the prefix answer the catalog's own 404, set where the catalog is mounted.
    notFoundMessage: undefined,
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const completed = async (id: string) => {
    const model = await models.get(id);
    if (model?.status !== 'completed') throw new ApiError(404, NOT_READY);
    return model;
  };

  const state = (
    request: FastifyRequest,
    key: ExportKey,
    model: ModelRow,
    configurationName: string | null,
    values: Pick<ExportState, 'status' | 'job_id'> & { blobKey?: string; size?: number },
  ): ExportState => ({
    format: key.format,
    lod: key.lod,
    materials: key.materials,
    unit: key.unit,
    configuration_id: key.configuration_id,
    status: values.status,
    job_id: values.job_id,
    url: values.blobKey ? urlFor(request)(values.blobKey) : null,
    file_name: exportFileName(model.name, key, configurationName),
    size: values.size ?? null,
    content_type: EXPORT_FILES[key.format].contentType,
    version: model.current_version,
  });

  app.get(
    '/:id/export',
    {
      schema: {
        operationId: 'exportModel',
        tags: ['models'],
        summary: 'Export the model as GLB, USDZ, OBJ (zip), STL or 3MF with its bound materials baked in',
        description:
          'The first call queues an export job and answers 202 with its state (ask again after `Retry-After` ' +
          'seconds). Once the file is made, the call answers 200 with the file as an attachment, or with ' +
          '`data.url` when the request accepts `application/json`. Cached until the model or a binding changes. ' +
          'STL and 3MF are written with +Z up in `unit` (millimetres by default); GLB, USDZ and OBJ in metres with +Y up. ' +
          '`configuration=<id>` bakes that configuration of the model instead (each its own cached file; 404 for ' +
          'one the model does not have); `materials=variants` (GLB only) adds every configuration as a ' +
          '`KHR_materials_variants` variant named after it. ' +
          'A read token may start and fetch an export: it is another form of the levels it may already read.',
        params: ModelIdParams,
        querystring: ExportQuery,
        response: {
          200: {
            description: 'The file, or its state with `url` for `Accept: application/json`.',
            content: {
              'application/json': { schema: catalogEnvelope(ExportSchema) },
              ...fileResponses,
            },
          },
          202: catalogEnvelope(ExportSchema),
          302: STORED_FILE_REDIRECT,
          400: CatalogErrorSchema,
          401: CatalogErrorSchema,
          404: CatalogErrorSchema,
          422: CatalogErrorSchema,
        },
      },
    },
    async (request, reply: FastifyReply) => {
      // The 200 answer has several media types, which the type provider cannot follow; the schema still validates.
      const key = exportKeyOf((request.params as { id: string }).id, request.query as ExportQuery);
      const model = await completed(key.model_id);
      const outcome = await prepare(model, key);
      const named = outcome.configurationName;
      if (outcome.status === 'ready') {
        if (wantsJson(request)) {
          return {
            success: true as const,
            data: state(request, key, model, named, {
              status: 'ready',
              job_id: null,
              blobKey: outcome.blobKey,
              size: outcome.size,
            }),
          };
        }
        if (!blobs.signedUrl) reply.header('content-length', outcome.size);
        return sendStoredFile(reply, blobs, outcome.blobKey, {
          headers: {
            contentType: outcome.contentType,
            contentDisposition: `attachment; filename="${outcome.fileName}"`,
          },
          cacheControl: 'private, no-cache',
        });
      }
      reply.code(202).header('retry-after', String(EXPORT_RETRY_AFTER_SECONDS));
      return {
        success: true as const,
        data: state(request, key, model, named, { status: outcome.status, job_id: outcome.jobId }),
      };
    },
  );
};
