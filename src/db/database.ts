import type { ColumnType, Generated, Insertable, Kysely, Selectable } from 'kysely';
import type { ConfigurationBindingsTable, ConfigurationsTable } from './configuration-tables.ts';
import type { AnnotationsTable, ReviewTopicsTable, SavedViewsTable } from './review-tables.ts';
import type { ModelVersionPartsTable, ModelVersionsTable } from './version-tables.ts';

export type { AnnotationsTable, ReviewTopicsTable, SavedViewsTable } from './review-tables.ts';
export type { ModelVersionPartsTable, ModelVersionsTable };

/** Timestamps are written as ISO strings; PostgreSQL reads them back as `Date`, SQLite as text. */
export type Timestamp = ColumnType<Date | string, string, string>;

/** The `materials` table. */
export interface MaterialsTable {
  id: Generated<number>;
  name: string;
  /** `name` as search folds it (src/db/search-fold.ts), what the list's name search compares. */
  name_folded: string;
  diffuse_r: number;
  diffuse_g: number;
  diffuse_b: number;
  alpha: number;
  shininess: number;
  specular_r: number;
  specular_g: number;
  specular_b: number;
  ambient_r: number;
  ambient_g: number;
  ambient_b: number;
  metallic: number;
  roughness: number;
  reflectance: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * The `material_bindings` table: at most one material per `group_id` (its primary key). `material_id` has no
 * foreign key; the material repository keeps the reference (see the 2026-11-23 migration).
 */
export interface MaterialBindingsTable {
  group_id: string;
  material_id: number;
  created_at: Timestamp;
}

/** The `material_generation` table: one row (id 1) whose value rises with every change a lookup can see. */
export interface MaterialGenerationTable {
  id: number;
  value: number;
}

/**
 * The `material_changes` table: what the raise to `generation` changed. `group_ids` (a JSON array) lists groups
 * whose bindings may have changed; `material_id` alone names a material whose own fields changed; both null
 * means too many groups to list (see the 2026-11-26 migration).
 */
export interface MaterialChangesTable {
  generation: number;
  material_id: number | null;
  group_ids: string | null;
}

/** The `models` table; JSON columns hold text on both databases. */
export interface ModelsTable {
  id: string;
  name: string;
  description: string;
  original_filename: string;
  /** `name`, `description` and `original_filename` as the list's `search` compares them (search-fold.ts). */
  name_folded: string;
  description_folded: string;
  original_filename_folded: string;
  format: string;
  file_size: number;
  status: string;
  progress: number;
  error: string | null;
  /** Blob key of the upload as received. */
  source_key: string;
  /** Path of the model file inside an uploaded archive, or null for a plain file. */
  source_entry: string | null;
  /** Unit the uploader declared for a unitless file (`mm`, `cm`, `m`, `in`, `ft`), or null for metres. */
  unit: string | null;
  /** Up axis the uploader declared for an axis-less file (`y`, `z`), or null for +Y. */
  up_axis: string | null;
  /** JSON array of `{level, key, triangle_count, size}`. */
  lods: string;
  thumbnail_key: string | null;
  /** Blob key of the model's 3D Tiles `tileset.json` (its tiles in the same folder), or null without one. */
  tileset_key: string | null;
  /** `uploaded` (chosen by a person: automatic renders keep it) or `rendered`; null without a thumbnail. */
  thumbnail_source: string | null;
  /** ISO time until which a thumbnail render holds the model (one render per model at a time), else null. */
  thumbnail_render_until: string | null;
  triangle_count: number | null;
  vertex_count: number | null;
  part_count: number | null;
  /** JSON `{min, max}` or null. */
  bounds: string | null;
  /** JSON array of strings. */
  tags: string;
  source_unit: string | null;
  source_up_axis: string | null;
  /** The resumable upload the model was made from (the client's `upload_id`), or null; unique. */
  upload_id: string | null;
  /** Hex SHA-256 of the token and `Idempotency-Key` of the multipart request that made the model, or null; unique. */
  idempotency_key: string | null;
  /** Hex SHA-256 of what that request carried (fields, file names, sizes, CRC-32s), to tell a retry from a new request. */
  request_fingerprint: string | null;
  /** Number of the version the model serves (its row in `model_versions`); 1 for a model never versioned. */
  current_version: Generated<number>;
  /** The highest version number the model ever gave (0 until a version is posted): a deleted number is not given again. */
  last_version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The `model_parts` table: one row per mesh node of a converted model, in scene order. */
export interface ModelPartsTable {
  model_id: string;
  part_index: number;
  group_id: string;
  name: string;
  /** `name` as search folds it (src/db/search-fold.ts), what the parts' `q` filter compares. */
  name_folded: string;
  path: string;
  triangle_count: number;
  vertex_count: number;
  /** JSON `{min, max}`. */
  bounds: string;
  /** JSON part properties read from the source file (src/pipeline/part-properties.ts); `{}` when it gave none. */
  properties: Generated<string>;
}

/** The `model_part_properties` table: one row per property of a part, what a `where=` filter looks up. */
export interface ModelPartPropertiesTable {
  model_id: string;
  part_index: number;
  set_name: string;
  property_name: string;
  /** `boolean`, `number` or `string`: a filter matches only values of its own type. */
  value_type: string;
  /** The value as canonical text: `true`/`false`, `String(number)`, or the string itself. */
  value: string;
  /** `value` as search folds it (src/db/search-fold.ts), what the parts' `q` filter compares. */
  value_folded: string;
}

/** The `jobs` table behind the embedded queue. */
export interface JobsTable {
  id: Generated<number>;
  name: string;
  /** JSON payload. */
  payload: string;
  /** `queued`, `running`, `completed` or `failed`. */
  status: string;
  attempts: number;
  max_attempts: number;
  /** What the job is about (a model id), so a deleted model's jobs can be found. */
  subject: string | null;
  /** Set while queued to keep one pending job per key (e.g. one thumbnail job per model). */
  dedupe_key: string | null;
  run_at: Timestamp;
  lease_until: Timestamp | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * The `job_outbox` table: jobs for a queue kept outside the database (Redis), written in the caller's transaction
 * and relayed to the queue once committed and due.
 */
export interface JobOutboxTable {
  /** The id the job gets in the queue. */
  id: string;
  name: string;
  /** JSON payload. */
  payload: string;
  subject: string | null;
  dedupe_key: string | null;
  max_attempts: number;
  /** Not relayed before this time unless promoted (an upload's job waits for its file). */
  run_at: Timestamp;
  created_at: Timestamp;
}

/** The `api_tokens` table: scoped tokens, kept only as the SHA-256 digest of the secret. */
export interface ApiTokensTable {
  id: string;
  name: string;
  /** `read` or `write`. */
  scope: string;
  /** Hex SHA-256 of the token. */
  token_hash: string;
  expires_at: Timestamp | null;
  created_at: Timestamp;
}

/** The `model_shares` table: public links to one model each. */
export interface ModelSharesTable {
  id: string;
  model_id: string;
  /** The link's secret, kept so the link can be shown again. */
  secret: string;
  /** Hex SHA-256 of the secret; requests are matched on it. */
  secret_hash: string;
  /** 1 when the link's page shows the model's annotations, else 0. */
  annotations: Generated<number>;
  /** 1 when the link shows the model's configurations (read-only) and their files, else 0. */
  configurations: Generated<number>;
  /** The version the link serves; null when it follows the model's current version. */
  version: number | null;
  created_at: Timestamp;
}

/** The `model_exports` table: the cached export of a model per format, level, material mode, unit and configuration. */
export interface ModelExportsTable {
  model_id: string;
  format: string;
  lod: number;
  /** `bound`, `source` or `variants`. */
  materials: string;
  /** Length unit of STL and 3MF (`millimeter` by default); `meter` for the other formats. */
  unit: string;
  /** The configuration the export bakes instead of the present bindings; '' for none. */
  configuration_id: string;
  /** Hash of what the export is made from (the model's state and its parts' bindings). */
  fingerprint: string;
  /** `queued`, `running`, `ready` or `failed`. */
  status: string;
  job_id: string | null;
  /** Blob key of the file once ready (kept while a newer export is made, then replaced). */
  blob_key: string | null;
  size: number | null;
  error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The `events` table: the log behind the live stream and webhooks, ids growing in commit order. */
export interface EventsTable {
  id: Generated<number>;
  /** One of the event types, e.g. `model.completed`. */
  type: string;
  /** The model the event is about, or null (a binding change names its models in `data`). */
  model_id: string | null;
  /** JSON object sent to clients as the event's data. */
  data: string;
  created_at: Timestamp;
}

/** The `webhooks` table: where events are posted, signed with the webhook's secret. */
export interface WebhooksTable {
  id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  /** The HMAC key; kept as written because signing needs it, and never sent back after creation. */
  secret: string;
  created_at: Timestamp;
}

/** The `webhook_deliveries` table: one row per event posted to a webhook, with its outcome. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: string;
  event_id: number;
  event_type: string;
  /** The exact JSON body posted (and signed), kept so a retry or redelivery sends the same bytes. */
  body: string;
  /** `pending`, `delivered` or `failed`. */
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Every table the service uses. */
export interface Database {
  materials: MaterialsTable;
  material_bindings: MaterialBindingsTable;
  material_generation: MaterialGenerationTable;
  material_changes: MaterialChangesTable;
  models: ModelsTable;
  model_parts: ModelPartsTable;
  model_part_properties: ModelPartPropertiesTable;
  model_versions: ModelVersionsTable;
  model_version_parts: ModelVersionPartsTable;
  jobs: JobsTable;
  job_outbox: JobOutboxTable;
  api_tokens: ApiTokensTable;
  model_shares: ModelSharesTable;
  model_exports: ModelExportsTable;
  annotations: AnnotationsTable;
  saved_views: SavedViewsTable;
  configurations: ConfigurationsTable;
  configuration_bindings: ConfigurationBindingsTable;
  review_topics: ReviewTopicsTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

/** The Kysely instance typed for this schema. */
export type Db = Kysely<Database>;

/** A material row as read. */
export type MaterialRow = Selectable<MaterialsTable>;
/** A material row as inserted. */
export type NewMaterialRow = Insertable<MaterialsTable>;
/** A model row as read. */
export type ModelRow = Selectable<ModelsTable>;
/** A model row as inserted. */
export type NewModelRow = Insertable<ModelsTable>;
/** A part row as read. */
export type ModelPartRow = Selectable<ModelPartsTable>;
/** A model version row as read. */
export type ModelVersionRow = Selectable<ModelVersionsTable>;
/** A model version row as inserted. */
export type NewModelVersionRow = Insertable<ModelVersionsTable>;
/** A version's part row as read. */
export type ModelVersionPartRow = Selectable<ModelVersionPartsTable>;
/** An export row as read. */
export type ModelExportRow = Selectable<ModelExportsTable>;
/** A job row as read. */
export type JobRow = Selectable<JobsTable>;
/** An outbox row as read. */
export type JobOutboxRow = Selectable<JobOutboxTable>;
/** A scoped token row as read. */
export type ApiTokenRow = Selectable<ApiTokensTable>;
/** A share link row as read. */
export type ModelShareRow = Selectable<ModelSharesTable>;
/** An annotation row as read. */
export type AnnotationRow = Selectable<AnnotationsTable>;
/** A stored BCF topic. */
export type ReviewTopicRow = Selectable<ReviewTopicsTable>;
/** A saved view row as read. */
export type SavedViewRow = Selectable<SavedViewsTable>;
/** An event row as read. */
export type EventRow = Selectable<EventsTable>;
/** A webhook row as read. */
export type WebhookRow = Selectable<WebhooksTable>;
/** A webhook delivery row as read. */
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
