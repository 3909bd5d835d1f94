import { createRequire } from 'node:module';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import path from 'node:path';
import { createLiveGrants } from './http/auth/live-grants.ts';
import { registerSharing } from './access/register-sharing.ts';
import type { ExportConfigurationFile } from './access/shared-configuration-routes.ts';
import { createTokenRepository } from './access/token-repository.ts';
import { tokenRoutes } from './access/token-routes.ts';
import { catalogRoutes } from './catalog/routes.ts';
import { createCatalogService, type CatalogService } from './catalog/catalog-service.ts';
import { createModelRepository, type ModelRepository } from './catalog/repository.ts';
import { createVersionIntake } from './catalog/intake/version-intake.ts';
import { createVersionRepository } from './catalog/versions/repository.ts';
import { versionRoutes } from './catalog/versions/routes.ts';
import { createExportRepository, type ExportRepository } from './exports/repository.ts';
import { createExportService, type ExportServiceOptions } from './exports/export-service.ts';
import { exportRoutes } from './exports/routes.ts';
import { registerReview } from './review/register-review.ts';
import { registerConfigurations } from './configurations/register-configurations.ts';
import { createConfigurationRepository } from './configurations/repository.ts';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/create-db.ts';
import { AccessLogController } from './http/access-log.ts';
import { registerHealth } from './http/health.ts';
import { createTokenChecker, type TokenChecker } from './http/auth/token-checker.ts';
import { registerCompression } from './http/compression.ts';
import { limitedServerFactory, registerConnectionLimits } from './http/connection-limits.ts';
import { registerJsonBodyParser } from './http/json-body-parser.ts';
import { refuseNulText } from './http/refuse-nul.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { registerApiNotFound } from './http/api-not-found.ts';
import { createFileUrlSigner, fileSigningKey } from './http/files/file-url-signer.ts';
import { requestFileUrls, type UrlFor } from './http/files/request-file-urls.ts';
import { registerFileRedirects } from './http/files/redirect-files.ts';
import { registerFileServing } from './http/files/serve-files.ts';
import { registerFolderFiles } from './http/files/serve-folders.ts';
import { registerViewer } from './http/files/serve-viewer.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { AppLogger } from './logger.ts';
import type { BlobStore } from './storage/blob-store.ts';
import { scratchDir } from './storage/sweep-leftovers.ts';
import { createValidatorCompiler } from './http/validator-compiler.ts';
import { cachedSerializerCompiler } from './http/serializer-compiler.ts';
import { createMaterialRepository, type MaterialRepository } from './materials/repository.ts';
import { openResumableUploads } from './uploads/tus-store.ts';
import { createUploadIntake } from './uploads/upload-intake.ts';
import { UPLOADS_PREFIX, uploadRoutes } from './uploads/upload-routes.ts';
import { materialRoutes } from './materials/routes.ts';
import { createBindingsAnnouncer, createMaterialEditAnnouncer } from './catalog/model-events.ts';
import { thumbnailRefresher } from './catalog/thumbnails/thumbnail-refresh.ts';
import { registerCors } from './http/cors.ts';
import { createEventHub, type EventHubOptions } from './events/event-hub.ts';
import { createEventLog } from './events/event-log.ts';
import type { EventPublisher } from './events/event-publisher.ts';
import { createEventStreams } from './events/event-stream.ts';
import { eventRoutes } from './events/routes.ts';
import type { EventWakeUp } from './events/wake-up.ts';
import { createAddressGuard } from './webhooks/address-guard.ts';
import { webhookRoutes } from './webhooks/routes.ts';

/** The service's version, as package.json has it (the same relative path from src/ and from dist/). */
const PACKAGE_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** What the app is built from; the caller owns these and closes them. */
export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  /** The token `X-API-Token` must carry. */
  apiToken: string;
  /** Where uploads and outputs are stored. */
  blobs: BlobStore;
  /** Where conversions and thumbnail renders are queued. */
  queue: JobQueue;
  /** The process logger. */
  logger: AppLogger;
  /** Tells this process when other processes recorded events. */
  wakeUp: EventWakeUp;
  /** Records the changes the API makes. */
  events: EventPublisher;
  /** Tuning of the event stream's log reader (tests turn its timer off to prove the wake-up works alone). */
  eventHub?: Partial<EventHubOptions>;
  /** How long a scoped token's file URLs are trusted unchecked (default `GRANT_RECHECK_MS`; tests shorten it). */
  grantRecheckMs?: number;
}

/** Builds the HTTP app without listening, so tests drive it with `app.inject`. */
export async function buildApp(dependencies: AppDependencies): Promise<FastifyInstance> {
  const { config, database, apiToken, blobs, queue, events, logger } = dependencies;
  const app = Fastify({
    loggerInstance: dependencies.logger as FastifyBaseLogger,
    serverFactory: limitedServerFactory(config),
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    logController: new AccessLogController(),
  });
  app.setValidatorCompiler(createValidatorCompiler());
  app.setSerializerCompiler(cachedSerializerCompiler);
  registerConnectionLimits(app, config);
  app.addHook('preHandler', refuseNulText);
  // Pages load files from the public base URL and, with S3, from where the /files/ redirects lead.
  const fileOrigins = [
    ...(config.publicBaseUrl ? [new URL(config.publicBaseUrl).origin] : []),
    ...(blobs.signedUrlOrigin ? [await blobs.signedUrlOrigin()] : []),
  ];
  registerSecurityHeaders(app, { fileOrigins });
  registerCors(app, config.corsOrigins);
  registerJsonBodyParser(app);
  await registerCompression(app);
  await registerOpenApi(app, { publicBaseUrl: config.publicBaseUrl, version: PACKAGE_VERSION });
  registerHealth(app, { db: database.db, queue, blobs, timeoutMs: config.connectTimeoutMs });

  const tokens = createTokenRepository(database);
  const checkToken = createTokenChecker(apiToken, tokens.findByHash);
  const fileUrls = createFileUrlSigner({
    key: fileSigningKey(config.fileUrlSecret, apiToken),
    lifetimeMs: config.fileUrlExpiresMs,
  });
  const streams = createEventStreams({
    recheckMs: config.eventStreamTokenCheckMs,
    onRecheckError: (error) => logger.warn({ err: error }, 'could not recheck the tokens of event streams'),
  });
  const grants = createLiveGrants({ isLive: tokens.isLive, recheckMs: dependencies.grantRecheckMs });
  // A revocation here ends its streams and file URLs at once; other processes' periodic rechecks catch theirs.
  const onRevoked = async (tokenId: string) => {
    grants.forget(tokenId);
    await streams.recheck();
  };
  await app.register(tokenRoutes, { prefix: '/api/tokens', tokens, checkToken, onRevoked });
  const materials = createMaterialRepository(database, {
    onDeadlockRetry: (error) => dependencies.logger.warn({ err: error }, 'binding retried after a deadlock'),
  });
  const models = createModelRepository(database);
  const catalog = createCatalogService({ database, blobs, queue, logger, events });
  const exports = createExportRepository(database);
  const urlFor = requestFileUrls(fileUrls, config.publicBaseUrl);
  const bindingApis = { ...dependencies, materials, models, catalog, checkToken, exports, urlFor };
  const configurations = createConfigurationRepository(database);
  await registerBindingApis(app, bindingApis);
  const resumable = await openResumableUploads(config);
  app.addHook('onClose', () => resumable.close());
  await app.register(uploadRoutes, {
    prefix: UPLOADS_PREFIX,
    store: resumable.store,
    locker: resumable.locker,
    refusalsUndone: resumable.refusalsUndone,
    checkToken,
    maxUploadBytes: config.maxUploadBytes,
    uploadExpiryMs: config.uploadExpiryMs,
    logger: dependencies.logger,
  });
  const uploadTmpDir = scratchDir(path.join(config.dataDir, 'tmp', 'uploads'));
  const intake = createUploadIntake(resumable.store, uploadTmpDir, resumable.holds);
  await app.register(catalogRoutes, {
    prefix: '/api/models',
    models,
    materials,
    blobs,
    catalog,
    checkToken,
    maxUploadBytes: config.maxUploadBytes,
    tmpDir: uploadTmpDir,
    intake,
    idempotencyWindowMs: config.idempotencyWindowMs,
    publicBaseUrl: config.publicBaseUrl,
    fileUrls,
  });
  // Straight after the catalog, so the export route follows the catalog's in the OpenAPI document.
  await app.register(exportRoutes, {
    prefix: '/api/models',
    models,
    materials,
    configurations,
    blobs,
    queue,
    exports,
    checkToken,
    urlFor,
  });
  await app.register(versionRoutes, {
    prefix: '/api/models',
    versions: createVersionRepository(database.db),
    models,
    blobs,
    queue,
    events,
    checkToken,
    newVersion: createVersionIntake(catalog, intake, {
      maxBytes: config.maxUploadBytes,
      tmpDir: uploadTmpDir,
    }),
    tokenName: tokens.nameOf,
    urlFor,
  });
  await registerReview(app, { database, models, blobs, events, checkToken, tokenName: tokens.nameOf });
  const eventLog = createEventLog(database);
  const hub = createEventHub(eventLog, dependencies.wakeUp, logger, dependencies.eventHub);
  // Open streams never end on their own; a closing app ends them so it does not wait for their clients.
  app.addHook('preClose', async () => streams.endAll());
  app.addHook('onClose', async () => hub.close());
  await app.register(eventRoutes, {
    prefix: '/api/events',
    checkToken,
    hub,
    log: eventLog,
    streams,
    idleTimeoutMs: config.idleTimeoutMs,
  });
  await app.register(webhookRoutes, {
    prefix: '/api/webhooks',
    db: database.db,
    queue,
    checkToken,
    guard: createAddressGuard({
      refusePrivate: config.webhookRefusePrivateAddresses,
      allowedRanges: config.webhookAllowedPrivateRanges,
    }),
  });
  const { publicBaseUrl, webDistDir: distDir } = config;
  const exportFile = configurationFiles({ ...bindingApis, configurations });
  const sharing = { database, materials, blobs, checkToken, publicBaseUrl, distDir, fileOrigins, exportFile };
  await registerSharing(app, sharing);
  const fileAccess = { signer: fileUrls, checkToken, grants };
  if (blobs.localRoot) await registerFileServing(app, blobs.localRoot, fileAccess);
  else if (blobs.signedUrl && config.storage.kind === 's3') {
    const { urlExpiresSeconds } = config.storage;
    registerFileRedirects(app, { signedUrl: blobs.signedUrl }, { urlExpiresSeconds, access: fileAccess });
  }
  // A tileset's files, under a grant of their folder; the presigned life only counts with S3.
  const urlExpiresSeconds = config.storage.kind === 's3' ? config.storage.urlExpiresSeconds : 0;
  registerFolderFiles(app, blobs, { access: fileAccess, urlExpiresSeconds });
  await registerViewer(app, { distDir: config.webDistDir });
  registerApiNotFound(app);

  return app;
}

/** A share link's configuration files: the exports the export route makes, at their finest level. */
function configurationFiles(options: ExportServiceOptions): ExportConfigurationFile {
  const prepare = createExportService(options);
  return (model, configurationId, format) =>
    prepare(model, {
      model_id: model.id,
      format,
      lod: 0,
      materials: 'bound',
      unit: 'meter',
      configuration_id: configurationId,
    });
}

/**
 * The material service at `/api/v1` and the configurations of models, which apply their bindings through it:
 * both announce a bind the same way (`bindings.changed`, then the thumbnails of the models it repaints).
 */
async function registerBindingApis(
  app: FastifyInstance,
  options: Pick<AppDependencies, 'config' | 'database' | 'events' | 'logger' | 'blobs'> & {
    materials: MaterialRepository;
    models: ModelRepository;
    catalog: CatalogService;
    checkToken: TokenChecker;
    urlFor: (request: FastifyRequest) => UrlFor;
    exports: ExportRepository;
  },
): Promise<void> {
  const { config, database, materials, models, events, checkToken, blobs, urlFor, exports } = options;
  const refreshThumbnails = thumbnailRefresher(options.catalog, config, options.logger);
  const announceBindings = createBindingsAnnouncer(models, events, refreshThumbnails);
  await app.register(materialRoutes, {
    prefix: '/api/v1',
    repository: materials,
    checkToken,
    lookupCacheBytes: config.lookupCacheMb * 1024 * 1024,
    announceBindings,
    announceMaterialEdit: createMaterialEditAnnouncer(models, refreshThumbnails),
  });
  await registerConfigurations(app, {
    database,
    models,
    events,
    checkToken,
    announceBindings,
    blobs,
    urlFor,
    async onDeleted(modelId, configurationId) {
      for (const key of await exports.forgetConfiguration(modelId, configurationId)) await blobs.delete(key);
    },
  });
}
