import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './database.ts';
import * as materials from './migrations/2026-11/2026-11-22-01-materials.ts';
import * as models from './migrations/2026-11/2026-11-22-02-models.ts';
import * as access from './migrations/2026-11/2026-11-23-01-access.ts';
import * as bindingsByGroup from './migrations/2026-11/2026-11-23-02-material-bindings-by-group.ts';
import * as modelExports from './migrations/2026-11/2026-11-23-03-model-exports.ts';
import * as declaredFrame from './migrations/2026-11/2026-11-23-04-declared-frame.ts';
import * as materialGeneration from './migrations/2026-11/2026-11-25-01-material-generation.ts';
import * as eventsAndWebhooks from './migrations/2026-11/2026-11-25-02-events-and-webhooks.ts';
import * as jobOutbox from './migrations/2026-11/2026-11-25-03-job-outbox.ts';
import * as materialChanges from './migrations/2026-11/2026-11-26-01-material-changes.ts';
import * as thumbnailSource from './migrations/2026-11/2026-11-26-02-thumbnail-source.ts';
import * as exportUnit from './migrations/2026-11/2026-11-27-01-export-unit.ts';
import * as uploadIdempotency from './migrations/2026-11/2026-11-27-02-upload-idempotency.ts';
import * as partProperties from './migrations/2026-11/2026-11-28-01-part-properties.ts';
import * as annotationsAndViews from './migrations/2026-11/2026-11-28-02-annotations-and-views.ts';
import * as tilesets from './migrations/2026-11/2026-11-28-03-tilesets.ts';
import * as modelVersions from './migrations/2026-11/2026-11-29-01-model-versions.ts';
import * as shareVersion from './migrations/2026-11/2026-11-29-02-share-version.ts';
import * as modelSearchText from './migrations/2026-11/2026-11-30-02-model-search-text.ts';
import * as partAndMaterialSearchText from './migrations/2026-12-01-02-part-and-material-search-text.ts';
import * as accentBlindSearch from './migrations/2026-12-02-01-accent-blind-search.ts';
import * as versionNumbersKept from './migrations/2026-12-03-01-version-numbers-kept.ts';
import * as bcfTopics from './migrations/2026-12-04-01-bcf-topics.ts';
import * as versionUploadId from './migrations/2026-12-04-02-version-upload-id.ts';
import * as configurations from './migrations/2026-12-05-01-configurations.ts';
import * as exportConfigurations from './migrations/2026-12-06-01-export-configurations.ts';
import * as configurationThumbnails from './migrations/2026-12-06-02-configuration-thumbnails.ts';
import * as shareConfigurations from './migrations/2026-12-07-01-share-configurations.ts';

// Listed here rather than read from disk so the set is fixed at build time and works from any working folder.
const MIGRATIONS: Record<string, Migration> = {
  '2026-11-22-01-materials': materials,
  '2026-11-22-02-models': models,
  '2026-11-23-01-access': access,
  '2026-11-23-02-material-bindings-by-group': bindingsByGroup,
  '2026-11-23-03-model-exports': modelExports,
  '2026-11-23-04-declared-frame': declaredFrame,
  '2026-11-25-01-material-generation': materialGeneration,
  '2026-11-25-02-events-and-webhooks': eventsAndWebhooks,
  '2026-11-25-03-job-outbox': jobOutbox,
  '2026-11-26-01-material-changes': materialChanges,
  '2026-11-26-02-thumbnail-source': thumbnailSource,
  '2026-11-27-01-export-unit': exportUnit,
  '2026-11-27-02-upload-idempotency': uploadIdempotency,
  '2026-11-28-01-part-properties': partProperties,
  '2026-11-28-02-annotations-and-views': annotationsAndViews,
  '2026-11-28-03-tilesets': tilesets,
  '2026-11-29-01-model-versions': modelVersions,
  '2026-11-29-02-share-version': shareVersion,
  '2026-11-30-02-model-search-text': modelSearchText,
  '2026-12-01-02-part-and-material-search-text': partAndMaterialSearchText,
  '2026-12-02-01-accent-blind-search': accentBlindSearch,
  '2026-12-03-01-version-numbers-kept': versionNumbersKept,
  '2026-12-04-01-bcf-topics': bcfTopics,
  '2026-12-04-02-version-upload-id': versionUploadId,
  '2026-12-05-01-configurations': configurations,
  '2026-12-06-01-export-configurations': exportConfigurations,
  '2026-12-06-02-configuration-thumbnails': configurationThumbnails,
  '2026-12-07-01-share-configurations': shareConfigurations,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const name = failed ? ` (${failed.migrationName})` : '';
    throw new Error(
      `Database migration failed${name}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
