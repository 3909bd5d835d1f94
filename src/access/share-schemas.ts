import { Type, type Static } from '@sinclair/typebox';
import {
  DeclaredUnit,
  LodSchema,
  PartSchema,
  PartsQuery,
  TilesetUrlSchema,
  Vector3Schema,
} from '../catalog/schemas.ts';
import { MAX_VERSION_NUMBER } from '../db/integer-bounds.ts';

/** Answer for an unknown or revoked secret, and for anything the secret does not open. */
export const SHARE_NOT_FOUND = 'Share link not found';

/** A share link as `/api/models/:id/shares` shows it. */
export const ShareSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String({ description: 'The public page `/s/<secret>`; add `?embed=1` for the bare viewer.' }),
  annotations: Type.Boolean({ description: "Whether the page shows the model's annotations (read-only)." }),
  configurations: Type.Boolean({
    description:
      "Whether the page shows the model's configurations (read-only) and their GLB and USDZ files.",
  }),
  version: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: "The version the link serves; null when it follows the model's current version.",
  }),
  created_at: Type.String({ format: 'date-time' }),
});
/** `POST /api/models/:id/shares`: an optional body. */
export const CreateShareBody = Type.Object(
  {
    annotations: Type.Optional(
      Type.Boolean({ default: false, description: "Show the model's annotations on the page, read-only." }),
    ),
    configurations: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "Show the model's configurations on the page, read-only: their list, their materials and each one's " +
          'GLB and USDZ (for AR).',
      }),
    ),
    version: Type.Optional(
      // Bounded by the `integer` column it ends in: PostgreSQL refuses 2^31 with a 500 otherwise.
      Type.Union([Type.Integer({ minimum: 1, maximum: MAX_VERSION_NUMBER }), Type.Null()], {
        description:
          "Pin a version of the model (a number it has): the link serves that version's levels even after " +
          'another becomes current, and stops answering if it is deleted. Null or absent: the current version.',
      }),
    ),
  },
  { additionalProperties: false },
);
/** The body of a share's creation. */
export type CreateShareBody = Static<typeof CreateShareBody>;

/** A share link on the wire. */
export type Share = Static<typeof ShareSchema>;

/** `:id/shares/:share_id`. */
export const ShareIdParams = Type.Object({
  id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid model id' }),
  share_id: Type.String({ format: 'uuid', 'x-error-message': 'Invalid share id' }),
});

/**
 * What a share link shows of its model: enough to draw it, no catalog internals (file names, sizes, tags, stored
 * file addresses). Every URL goes through `/s/<secret>/…`, so revoking the link stops them too.
 */
export const SharedModelSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.String(),
  status: Type.String(),
  lods: Type.Array(LodSchema),
  tileset_url: TilesetUrlSchema,
  thumbnail_url: Type.Union([Type.String(), Type.Null()]),
  triangle_count: Type.Union([Type.Integer(), Type.Null()]),
  vertex_count: Type.Union([Type.Integer(), Type.Null()]),
  part_count: Type.Union([Type.Integer(), Type.Null()]),
  source_unit: Type.Union([Type.String(), Type.Null()], {
    description: 'Length unit of the source before scaling to metres: measures on the page read in it.',
  }),
  unit: Type.Union([DeclaredUnit, Type.Null()], {
    description: 'Unit declared for a file that states none; null: the stated one, else metres.',
  }),
  version: Type.Integer({
    description: "The version of the model served: the one the link pins, else the model's current one.",
  }),
  annotations: Type.Boolean({
    description:
      'Whether the link shows annotations: `/s/<secret>/models/<id>/annotations` answers only then.',
  }),
  configurations: Type.Boolean({
    description:
      'Whether the link shows configurations: `/s/<secret>/models/<id>/configurations…` answers only then.',
  }),
  bounds: Type.Union([
    Type.Object({
      min: Vector3Schema,
      max: Vector3Schema,
    }),
    Type.Null(),
  ]),
});
/** A shared model on the wire. */
export type SharedModel = Static<typeof SharedModelSchema>;

/** The parts of a shared model, each with its bound material, as the catalog lists them. */
export const SharedPartsSchema = Type.Array(PartSchema);

/** `/s/:secret…` path parameters. */
export const SecretParams = Type.Object({ secret: Type.String() });

/** `/s/:secret/models/:id…`: any text for the id, so a wrong one is a 404 like any other model. */
export const SharedModelParams = Type.Object({
  secret: Type.String(),
  id: Type.String(),
});

/** `/s/:secret/models/:id/parts/:group_id`: an unknown part is a 404 like an unknown model. */
export const SharedPartParams = Type.Object({
  secret: Type.String(),
  id: Type.String(),
  group_id: Type.String({ minLength: 1, maxLength: 1000 }),
});

/** `/s/:secret/models/:id/lod/:level`. */
export const SharedLodParams = Type.Object({
  secret: Type.String(),
  id: Type.String(),
  level: Type.String(),
});

/** `/s/:secret/models/:id/tileset/tiles/:tile`. */
export const SharedTileParams = Type.Object({
  secret: Type.String(),
  id: Type.String(),
  tile: Type.String({ description: 'A tile the tileset names, `<tile id>.glb`.' }),
});

/** A configuration as a link made with `configurations: true` shows it: read-only, no internals. */
export const SharedConfigurationSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.String(),
  thumbnail_url: Type.Union([Type.String(), Type.Null()], {
    description: "The model drawn with the configuration's materials, under the link; null until rendered.",
  }),
});
/** A shared configuration on the wire. */
export type SharedConfiguration = Static<typeof SharedConfigurationSchema>;

/** `/s/:secret/models/:id/configurations/:cid…`: any text, so an unknown one is a 404 like any other. */
export const SharedConfigurationParams = Type.Object({
  secret: Type.String(),
  id: Type.String(),
  cid: Type.String(),
});

/** `/s/:secret/models/:id/parts`: the catalog's filters, and a configuration to paint the parts with. */
export const SharedPartsQuery = Type.Composite([
  PartsQuery,
  Type.Object({
    configuration_id: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'A configuration of the model (links made with `configurations: true` only): a part it binds shows ' +
          'its material there, any other its present binding.',
      }),
    ),
  }),
]);
