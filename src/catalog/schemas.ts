import { Type, type Static } from '@sinclair/typebox';
import { LENGTH_UNITS, UP_AXES } from '../pipeline/types.ts';
import type { DeclaredUp, LengthUnit } from '../pipeline/types.ts';
import type { ModelPartRow, ModelRow } from '../db/database.ts';
import { toIso } from '../db/timestamps.ts';
import type { UrlFor } from '../http/files/request-file-urls.ts';
import { MaterialSchema, type Material } from '../materials/schemas.ts';
import type { StoredLod } from './conversion/conversion-record.ts';
import { tilesetFolderOf } from './lod-keys.ts';

/** The four states of a model. */
export const MODEL_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
/** One of {@link MODEL_STATUSES}. */
export type ModelStatus = (typeof MODEL_STATUSES)[number];

/** The catalog's answer for an unknown model (routes 2, 3 and 7–10, and every feature's routes under a model). */
export const MODEL_NOT_FOUND = 'Model not found';
/** The catalog's answer for an unknown or unconverted model (routes 4–6, exports, share links). */
export const NOT_READY = 'Model not ready or not found';

/** Largest `limit` of the model list. */
export const MAX_LIST_LIMIT = 100;

/** Columns the model list can be ordered by. */
export const MODEL_SORT_FIELDS = ['created_at', 'name', 'file_size', 'triangle_count'] as const;
/** A list order: a field, ascending, or with a leading `-`, descending. */
export type ModelSort = (typeof MODEL_SORT_FIELDS)[number] | `-${(typeof MODEL_SORT_FIELDS)[number]}`;
/** Every accepted `sort` value. */
export const MODEL_SORTS: readonly ModelSort[] = MODEL_SORT_FIELDS.flatMap((field) => [
  field,
  `-${field}` as const,
]);

/**
 * An x, y, z triple. Written as a three-item array rather than a tuple: OpenAPI 3.0 has no `additionalItems`,
 * which TypeBox tuples emit; the static type stays a tuple.
 */
export const Vector3Schema = Type.Unsafe<[number, number, number]>(
  Type.Array(Type.Number(), { minItems: 3, maxItems: 3 }),
);
const BoundsSchema = Type.Object(
  { min: Vector3Schema, max: Vector3Schema },
  { description: 'Axis-aligned box in metres.' },
);

/** One level of detail as the catalog lists it. */
export const LodSchema = Type.Object({
  level: Type.Integer({ minimum: 0, maximum: 2 }),
  url: Type.String({
    description:
      'Signed file URL: no token needed until it expires (`FILE_URL_EXPIRES_SECONDS`) or the scoped token it was handed to is revoked.',
  }),
  triangle_count: Type.Integer(),
  size: Type.Integer({ description: 'GLB size in bytes.' }),
  error: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
    description:
      "Largest geometric error of this level against LOD 0, as a share of the model's bounding-box diagonal " +
      '(0 for LOD 0); null for models converted before it was measured.',
  }),
  reduced: Type.Union([Type.Boolean(), Type.Null()], {
    description:
      'Whether this level is a simplified file of its own, with at most 60 % (LOD 1) or 30 % (LOD 2) of the ' +
      'geometry bytes of LOD 0. false for LOD 0, and for a level that could not shrink that much within its error ' +
      'bound: its url, size, triangle_count and error are then those of the level before it, stored once. null for ' +
      'models converted before it was recorded.',
  }),
});

/** A unit an uploader may declare for a file that states none. */
export const DeclaredUnit = Type.Unsafe<LengthUnit>({ type: 'string', enum: Object.keys(LENGTH_UNITS) });

/** An up axis an uploader may declare for a file that states none. */
export const DeclaredUpAxis = Type.Unsafe<DeclaredUp>({ type: 'string', enum: [...UP_AXES] });

/** Where a model's 3D Tiles tileset is, in the catalog and under a share link alike. */
export const TilesetUrlSchema = Type.Union([Type.String(), Type.Null()], {
  description:
    "The model's 3D Tiles 1.1 `tileset.json` once completed, for a model above `TILES_ABOVE_TRIANGLES` (else null): " +
    'a k-d tree of GLB tiles (`EXT_meshopt_compression`, `refine: REPLACE`), leaves at full resolution, each ' +
    "vertex's part as an `EXT_mesh_features` feature id whose `EXT_structural_metadata` table (class `part`) " +
    'gives its `group_id` and `name`. Tile content is glTF, +Y up, turned +Z up by 3D Tiles as usual. The URL ' +
    "carries its grant in the path, so the tileset's relative tile URIs resolve to files under the same grant.",
});

/** A model as every catalog route returns it. */
export const ModelSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.String(),
  original_filename: Type.String(),
  format: Type.String({
    description: 'Lower-case extension of the model file (inside a zip: of the file in it).',
  }),
  file_size: Type.Integer({ description: 'Upload size in bytes.' }),
  status: Type.Union(MODEL_STATUSES.map((status) => Type.Literal(status))),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the conversion failed, else null.' }),
  model_url: Type.Union([Type.String(), Type.Null()], {
    description:
      'LOD 0 once completed, else null; a signed file URL, fetched with no token until it expires.',
  }),
  thumbnail_url: Type.Union([Type.String(), Type.Null()], {
    description: 'A signed file URL, like `model_url`.',
  }),
  original_url: Type.String({
    description: 'The upload as received, byte for byte, for download; a signed file URL, like `model_url`.',
  }),
  lods: Type.Array(LodSchema),
  tileset_url: TilesetUrlSchema,
  triangle_count: Type.Union([Type.Integer(), Type.Null()]),
  vertex_count: Type.Union([Type.Integer(), Type.Null()]),
  part_count: Type.Union([Type.Integer(), Type.Null()]),
  bounds: Type.Union([BoundsSchema, Type.Null()]),
  tags: Type.Array(Type.String()),
  source_unit: Type.Union([Type.String(), Type.Null()], {
    description: 'Length unit of the source before scaling to metres.',
  }),
  source_up_axis: Type.Union([Type.String(), Type.Null()], {
    description: 'Up axis of the source before turning to +Y.',
  }),
  unit: Type.Union([DeclaredUnit, Type.Null()], {
    description: 'Unit declared at upload or by PATCH for a file that states none; null: metres.',
  }),
  up: Type.Union([DeclaredUpAxis, Type.Null()], {
    description: 'Up axis declared at upload or by PATCH for a file that states none; null: y.',
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
/** A model on the wire. */
export type Model = Static<typeof ModelSchema>;

/** A part of a model: a node that carries a mesh. */
export const PartSchema = Type.Object({
  group_id: Type.String(),
  name: Type.String(),
  path: Type.String({ description: 'Names of the ancestors joined by "/".' }),
  triangle_count: Type.Integer(),
  vertex_count: Type.Integer(),
  bounds: BoundsSchema,
  material: Type.Union([MaterialSchema, Type.Null()], {
    description: 'The material bound to the group, or null.',
  }),
});
/** A part on the wire. */
export type Part = Static<typeof PartSchema>;

const PropertyScalarSchema = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

/** A part's properties: sets of named values, a value with a unit as `{value, unit}`. */
export const PartPropertiesSchema = Type.Record(
  Type.String(),
  Type.Record(
    Type.String(),
    Type.Union([PropertyScalarSchema, Type.Object({ value: PropertyScalarSchema, unit: Type.String() })]),
  ),
  {
    description:
      'Property sets read from the source file at conversion, e.g. {"Pset_WallCommon": {"IsExternal": true}, ' +
      '"Qto_WallBaseQuantities": {"Length": {"value": 5, "unit": "m"}}}. IFC parts have an "Element" set (class, ' +
      'attributes, type, storey, material), glTF parts their node extras, STEP parts a "Product" set. Names are cut ' +
      'to 128 characters, texts to 1,000, at most 500 properties a part and 250,000 a model.',
  },
);

/** A part with its properties, as the single-part route answers. */
export const PartWithPropertiesSchema = Type.Composite([
  PartSchema,
  Type.Object({ properties: PartPropertiesSchema }),
]);

/** `:id/parts/:group_id`. */
export const PartParams = Type.Object({
  id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid model id' }),
  group_id: Type.String({ minLength: 1, maxLength: 1000, description: "The part's group id." }),
});

/** The filters of `GET :id/parts`; without them the list is every part. */
export const PartsQuery = Type.Object({
  where: Type.Optional(
    Type.Union(
      [Type.String({ maxLength: 2000 }), Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 20 })],
      {
        description:
          'Set.Name=value, repeated for AND (at most 20): `true`/`false` match booleans, a decimal a number, ' +
          '"quoted" or other text a string; e.g. where=Pset_WallCommon.IsExternal=true. A set name with a dot is ' +
          'quoted: where="Pset.Custom".Name=value.',
      },
    ),
  ),
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Text found in the part name or in any of its property values, case and accents ignored in every script (STRASSE finds Straße, ecrou finds Écrou).',
    }),
  ),
});

const modelId = Type.String({ format: 'uuid', 'x-error-message': 'Invalid model id' });

/** `:id` of every `/api/models/:id…` route. */
export const ModelIdParams = Type.Object({ id: modelId });

/** `:id/lod/:level`; the level comes first so it is checked before the model. */
export const LodLevelParams = Type.Object({
  // Matched as text: integer coercion would also take " ", "0x1" or "1e0" for a level.
  level: Type.String({
    pattern: '^[0-2]$',
    description: '0, 1 or 2.',
    'x-error-message': 'Invalid LOD level. Must be 0, 1, or 2.',
  }),
  id: modelId,
});

/** Query of `GET /api/models`. */
export const ListModelsQuery = Type.Object({
  search: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        'Case- and accent-insensitive substring of name, description or file name, in any script: compared after ' +
        'NFKC normalization, full Unicode case folding and without accents, so `ÉCOLE` and `ecole` find `école` ' +
        'and `STRASSE` finds `Straße`.',
    }),
  ),
  // An enum rather than a union of literals, so a bad value is told the allowed ones, not "must be a string".
  status: Type.Optional(Type.Unsafe<ModelStatus>({ type: 'string', enum: [...MODEL_STATUSES] })),
  format: Type.Optional(Type.String({ maxLength: 16 })),
  sort: Type.Optional(
    Type.Unsafe<ModelSort>({
      type: 'string',
      enum: [...MODEL_SORTS],
      description:
        'Order: a field, ascending, or with a leading "-", descending. Default -created_at (newest first). ' +
        'name compares case-insensitively; models without a triangle count come last either way.',
    }),
  ),
  tag: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Only models carrying this tag (case-insensitive).',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_LIST_LIMIT, description: '1–100; absent or 0 means 20.' }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2 ** 53 - 1, description: 'Absent or 0 means 0.' }),
  ),
});

/** Body of `PATCH /api/models/:id`: at least one of the fields, nothing else. */
export const PatchModelBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })),
    unit: Type.Optional(DeclaredUnit),
    up: Type.Optional(DeclaredUpAxis),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    'x-error-message-minProperties': 'body must contain at least one of name, description, tags, unit, up',
  },
);
/** Parsed PATCH body. */
export type PatchModelBody = Static<typeof PatchModelBody>;

/** The stored LODs of a model row. */
export function storedLods(row: ModelRow): StoredLod[] {
  return JSON.parse(row.lods) as StoredLod[];
}

/** The folder of a completed model's stored tileset (its `tileset.json` and `tiles/`), or undefined without one. */
export function storedTilesetFolder(row: ModelRow): string | undefined {
  return row.status === 'completed' && row.tileset_key ? tilesetFolderOf(row.tileset_key) : undefined;
}

/** Stored levels as the API lists them, each with its URL. */
export function lodsOnTheWire(lods: readonly StoredLod[], urlFor: UrlFor): Model['lods'] {
  return lods.map(({ level, key, triangle_count, size, error, reduced }) => ({
    level,
    url: urlFor(key),
    triangle_count,
    size,
    error: error ?? null,
    reduced: reduced ?? null,
  }));
}

/** A model row as the API shows it: URLs resolved, JSON columns parsed; no `model_url` or LODs until completed. */
export function toModel(row: ModelRow, urlFor: UrlFor): Model {
  const completed = row.status === 'completed';
  const lods = completed ? lodsOnTheWire(storedLods(row), urlFor) : [];
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    original_filename: row.original_filename,
    format: row.format,
    file_size: Number(row.file_size),
    status: row.status as ModelStatus,
    progress: row.progress,
    error: row.error,
    model_url: lods.find((lod) => lod.level === 0)?.url ?? null,
    thumbnail_url: row.thumbnail_key ? urlFor(row.thumbnail_key) : null,
    original_url: urlFor(row.source_key),
    lods,
    tileset_url: completed && row.tileset_key ? urlFor(row.tileset_key, storedTilesetFolder(row)) : null,
    triangle_count: row.triangle_count === null ? null : Number(row.triangle_count),
    vertex_count: row.vertex_count === null ? null : Number(row.vertex_count),
    part_count: row.part_count,
    bounds: row.bounds ? JSON.parse(row.bounds) : null,
    tags: JSON.parse(row.tags) as string[],
    source_unit: row.source_unit,
    source_up_axis: row.source_up_axis,
    unit: (row.unit as LengthUnit | null) ?? null,
    up: (row.up_axis as DeclaredUp | null) ?? null,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/** A part row with its material and its stored properties. */
export function toPartWithProperties(
  row: Omit<ModelPartRow, 'name_folded'>,
  material: Material | undefined,
): Static<typeof PartWithPropertiesSchema> {
  return { ...toPart(row, material), properties: JSON.parse(row.properties) };
}

/** A part row with the material bound to its group, if any. */
export function toPart(row: Omit<ModelPartRow, 'name_folded'>, material: Material | undefined): Part {
  return {
    group_id: row.group_id,
    name: row.name,
    path: row.path,
    triangle_count: Number(row.triangle_count),
    vertex_count: Number(row.vertex_count),
    bounds: JSON.parse(row.bounds),
    material: material ?? null,
  };
}

// The reading of the parts query belongs with its schema, and the share routes serve the same filters.
export { PART_NOT_FOUND, partFilter, type PartFilter } from './part-filters.ts';
