import type { FastifyInstance } from 'fastify';
import { createModelRepository } from '../catalog/repository.ts';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import type { MaterialRepository } from '../materials/repository.ts';
import { createVersionRepository } from '../catalog/versions/repository.ts';
import { createAnnotationRepository } from '../review/repository.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { oembedRoutes } from './oembed-routes.ts';
import { createConfigurationRepository } from '../configurations/repository.ts';
import { createShareRepository } from './share-repository.ts';
import type { ExportConfigurationFile } from './shared-configuration-routes.ts';
import { shareRoutes } from './share-routes.ts';
import { sharedModelRoutes } from './shared-model-routes.ts';

/** What share links need from the app. */
export interface SharingOptions {
  database: DatabaseHandle;
  materials: MaterialRepository;
  blobs: BlobStore;
  checkToken: TokenChecker;
  publicBaseUrl: string | undefined;
  /** Folder of the viewer build holding `share.html`. */
  distDir: string;
  /** Starts or finds the export of a configuration, for a link's configuration files. */
  exportFile: ExportConfigurationFile;
  /** Origins besides the service's own that pages load files from (the public base URL's, the bucket's). */
  fileOrigins: string[];
}

/**
 * Share links: their management under `/api/models/:id/shares` (token), the public page and data at
 * `/s/<secret>…` (no token, one model only) and `/oembed`.
 */
export async function registerSharing(app: FastifyInstance, options: SharingOptions): Promise<void> {
  const { database, materials, blobs, checkToken, publicBaseUrl, distDir, fileOrigins, exportFile } = options;
  const models = createModelRepository(database);
  const shares = createShareRepository(database);
  const versions = createVersionRepository(database.db);
  await app.register(shareRoutes, {
    prefix: '/api/models',
    models,
    shares,
    versions,
    checkToken,
    publicBaseUrl,
  });
  await app.register(sharedModelRoutes, {
    prefix: '/s',
    models,
    materials,
    shares,
    versions,
    annotations: createAnnotationRepository(database),
    configurations: createConfigurationRepository(database),
    exportFile,
    blobs,
    publicBaseUrl,
    distDir,
    fileOrigins,
  });
  await app.register(oembedRoutes, { prefix: '/oembed', models, shares, publicBaseUrl });
}
