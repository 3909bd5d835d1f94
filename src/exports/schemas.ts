import { Type, type Static } from '@sinclair/typebox';
import {
  EXPORT_FORMATS,
  EXPORT_MATERIAL_MODES,
  EXPORT_UNITS,
  type ExportFormat,
  type ExportMaterialMode,
  type ExportUnit,
} from '../writers/export-formats.ts';

/** States of an export: waiting for the queue, being written, stored, or failed for good. */
export const EXPORT_STATUSES = ['queued', 'running', 'ready', 'failed'] as const;

/** Query of `GET /api/models/:id/export`. */
export const ExportQuery = Type.Object({
  // Enums rather than unions of literals, so a bad value is told the allowed ones.
  format: Type.Optional(
    Type.Unsafe<ExportFormat>({
      type: 'string',
      enum: [...EXPORT_FORMATS],
      description: 'File format, glb by default.',
    }),
  ),
  lod: Type.Optional(
    // Matched as text like `/lod/:level`: integer coercion would also take "1e0" or " 1".
    Type.String({
      pattern: '^[0-2]$',
      description: 'Level of detail, 0 (default), 1 or 2.',
      'x-error-message': 'lod must be 0, 1 or 2',
    }),
  ),
  materials: Type.Optional(
    Type.Unsafe<ExportMaterialMode>({
      type: 'string',
      enum: [...EXPORT_MATERIAL_MODES],
      description:
        '`bound` (default) bakes the material service bindings in; `source` keeps the model’s own; `variants` ' +
        '(glb only) bakes the bindings in as the default materials and adds one `KHR_materials_variants` variant ' +
        'per configuration of the model, named after it, giving each part the configuration binds its material.',
    }),
  ),
  configuration: Type.Optional(
    Type.String({
      format: 'uuid',
      description:
        'A configuration of the model to bake instead of the present bindings (with `materials=bound`, any ' +
        'format): a part it binds gets its material, any other its present binding.',
      'x-error-message': 'configuration must be the id of a configuration (a UUID)',
    }),
  ),
  unit: Type.Optional(
    Type.Unsafe<ExportUnit>({
      type: 'string',
      enum: [...EXPORT_UNITS],
      description:
        'Length unit of `stl` and `3mf`, which are written with +Z up: `millimeter` (default), `micron`, ' +
        '`centimeter`, `inch`, `foot` or `meter`. Other formats are always in metres with +Y up and refuse it.',
    }),
  ),
});
/** Parsed export query. */
export type ExportQuery = Static<typeof ExportQuery>;

/** The state of one export, as the 202 (and the JSON 200) answers it. */
export const ExportSchema = Type.Object({
  format: Type.Unsafe<ExportFormat>({ type: 'string', enum: [...EXPORT_FORMATS] }),
  lod: Type.Integer({ minimum: 0, maximum: 2 }),
  materials: Type.Unsafe<ExportMaterialMode>({ type: 'string', enum: [...EXPORT_MATERIAL_MODES] }),
  unit: Type.Unsafe<ExportUnit>({
    type: 'string',
    enum: [...EXPORT_UNITS],
    description: 'Length unit of the file: as asked for `stl` and `3mf`, `meter` for the other formats.',
  }),
  configuration_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The configuration the export bakes, or null for the present bindings.',
  }),
  status: Type.Union(EXPORT_STATUSES.map((status) => Type.Literal(status))),
  job_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The job making the export, while queued.',
  }),
  url: Type.Union([Type.String(), Type.Null()], {
    description: 'Where the file is fetched once ready: a signed file URL, no token needed until it expires.',
  }),
  file_name: Type.String(),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'File size in bytes once ready.' }),
  content_type: Type.String(),
  version: Type.Integer({
    minimum: 1,
    description:
      'The model version the export is made from: the current one (an export is named by the levels it is made ' +
      'from, so a file made from another version is never answered; another version made current makes it again).',
  }),
});
/** An export's state on the wire. */
export type ExportState = Static<typeof ExportSchema>;

/** Seconds a client is told to wait before asking again while an export is being made. */
export const EXPORT_RETRY_AFTER_SECONDS = 1;
