// The wire shapes of model versions, and where a version's files live; the catalog's conversion job reads the
// folder from here too.
import { Type, type Static } from '@sinclair/typebox';
import type { ModelVersionRow } from '../../db/database.ts';
import { toIso } from '../../db/timestamps.ts';
import type { UrlFor } from '../../http/files/request-file-urls.ts';
import { LodSchema, lodsOnTheWire, MODEL_STATUSES, type ModelStatus } from '../schemas.ts';
import type { StoredLod } from '../conversion/conversion-record.ts';
import type { DiffCounts } from './repository.ts';

/**
 * The folder of a version's files: the model's own folder for version 1 (where a model's files always were),
 * `models/{id}/v{n}/` for the later ones, so deleting one removes its folder and nothing else.
 */
export function versionFolder(modelId: string, number: number): string {
  return number <= 1 ? `models/${modelId}/` : `models/${modelId}/v${number}/`;
}

/**
 * The job subject of a version's conversion: deleting the version cancels its queued job by it, and the sweep of
 * stranded versions asks the queue by it whether the job still lives.
 */
export function versionJobSubject(modelId: string, number: number): string {
  return `version:${modelId}:${number}`;
}

const modelId = Type.String({ format: 'uuid', 'x-error-message': 'Invalid model id' });
// Matched as text so " 1", "0x1" or "1e0" are refused with the same message as any other bad number.
const versionNumber = Type.String({
  pattern: '^[1-9][0-9]{0,8}$',
  description: 'A version number: 1, 2, …',
  'x-error-message': 'Invalid version number. Must be a positive integer.',
});

/** `:id` and `:n` of the single-version routes. */
export const VersionParams = Type.Object({ id: modelId, n: versionNumber });

/** `:id`, `:a` and `:b` of the diff route. */
export const DiffParams = Type.Object({ id: modelId, a: versionNumber, b: versionNumber });

const CountsSchema = Type.Object({
  added: Type.Integer(),
  removed: Type.Integer(),
  changed: Type.Integer(),
  unchanged: Type.Integer(),
});

/** A version as the API lists it. */
export const VersionSchema = Type.Object({
  number: Type.Integer({ minimum: 1 }),
  original_filename: Type.String(),
  format: Type.String(),
  file_size: Type.Integer(),
  status: Type.Unsafe<ModelStatus>({ type: 'string', enum: [...MODEL_STATUSES] }),
  progress: Type.Number(),
  error: Type.Union([Type.String(), Type.Null()]),
  triangle_count: Type.Union([Type.Integer(), Type.Null()]),
  vertex_count: Type.Union([Type.Integer(), Type.Null()]),
  part_count: Type.Union([Type.Integer(), Type.Null()]),
  current: Type.Boolean({ description: 'Whether the model serves this version now.' }),
  based_on: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The version that was current when this one was posted; null for the first.',
  }),
  diff_counts: Type.Union([CountsSchema, Type.Null()], {
    description: 'What changed against `based_on`, once completed; null before, and for the first version.',
  }),
  author: Type.Union([Type.String(), Type.Null()], {
    description:
      'Name of the scoped token that posted it; null for the admin token and for the first version.',
  }),
  created_at: Type.String({ format: 'date-time' }),
  lods: Type.Array(LodSchema, { description: 'The version’s own levels; empty until it completes.' }),
  thumbnail_url: Type.Union([Type.String(), Type.Null()], {
    description:
      'The picture rendered from this version (version 1 keeps the one its model’s conversion rendered once ' +
      'another version is current), or null; the model shows the current version’s unless one was uploaded.',
  }),
});
/** A version on the wire. */
export type Version = Static<typeof VersionSchema>;

const PartRefSchema = Type.Object({ group_id: Type.String(), name: Type.String() });
const ChangeKind = Type.Unsafe<'geometry' | 'transform' | 'name' | 'properties' | 'material'>({
  type: 'string',
  enum: ['geometry', 'transform', 'name', 'properties', 'material'],
});

/** The answer of the diff route: parts matched by group id between version `from` and version `to`. */
export const PartDiffSchema = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  added: Type.Array(PartRefSchema),
  removed: Type.Array(PartRefSchema),
  changed: Type.Array(
    Type.Object({ group_id: Type.String(), name: Type.String(), what: Type.Array(ChangeKind) }),
  ),
  unchanged: Type.Array(PartRefSchema),
  counts: CountsSchema,
});

/** The JSON body of `POST /api/models/:id/versions` naming a finished resumable upload. */
export const CreateVersionFromUploadBody = Type.Object({
  upload_id: Type.String({
    pattern: '^[A-Za-z0-9_-]{1,128}$',
    description: 'The last path segment of the upload URL (`Location` of `POST /api/uploads`).',
  }),
  unit: Type.Optional(
    Type.String({ description: 'Length unit of a file that declares none: mm, cm, m (default), in or ft.' }),
  ),
  up: Type.Optional(Type.String({ description: 'Up axis of a file that declares none: y (default) or z.' })),
});

/** A version row as the API shows it; `current` is the model's `current_version`. */
export function toVersion(row: ModelVersionRow, current: number, urlFor: UrlFor): Version {
  const completed = row.status === 'completed';
  const lods = completed ? lodsOnTheWire(JSON.parse(row.lods) as StoredLod[], urlFor) : [];
  return {
    number: row.number,
    original_filename: row.original_filename,
    format: row.format,
    file_size: Number(row.file_size),
    status: row.status as ModelStatus,
    progress: row.progress,
    error: row.error,
    triangle_count: row.triangle_count === null ? null : Number(row.triangle_count),
    vertex_count: row.vertex_count === null ? null : Number(row.vertex_count),
    part_count: row.part_count,
    current: row.number === current,
    based_on: row.based_on,
    diff_counts: row.diff_counts ? (JSON.parse(row.diff_counts) as DiffCounts) : null,
    author: row.author,
    created_at: toIso(row.created_at),
    lods,
    thumbnail_url: row.thumbnail_key ? urlFor(row.thumbnail_key) : null,
  };
}
