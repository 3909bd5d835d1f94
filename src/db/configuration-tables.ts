// The tables of model configurations, apart from database.ts so that file stays one screenful per table family.
import type { Timestamp } from './database.ts';

/** The `configurations` table: named sets of bindings of a model's parts; names unique per model. */
export interface ConfigurationsTable {
  id: string;
  model_id: string;
  name: string;
  description: string;
  /** Blob key of its own thumbnail, null until the first render. */
  thumbnail_key: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The `configuration_bindings` table: at most one material per group in a configuration. */
export interface ConfigurationBindingsTable {
  configuration_id: string;
  group_id: string;
  material_id: number;
}
