import { Type, type Static } from '@sinclair/typebox';
import { ModelIdParams } from '../catalog/schemas.ts';
import { toIso } from '../db/timestamps.ts';
import { MAX_GROUP_ID_LENGTH, MAX_GROUP_IDS } from '../materials/schemas.ts';

/** Most configurations one model may have. */
export const MAX_CONFIGURATIONS = 100;
/** Longest configuration name, after trimming. */
export const MAX_CONFIGURATION_NAME_LENGTH = 255;
/** Longest description. */
export const MAX_DESCRIPTION_LENGTH = 2000;

/** The answer for a configuration the model does not have. */
export const CONFIGURATION_NOT_FOUND = 'Configuration not found';

/** A configuration as every route returns it. */
export const ConfigurationSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  model_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  binding_count: Type.Integer({ description: 'How many parts the configuration binds.' }),
  thumbnail_url: Type.Union([Type.String(), Type.Null()], {
    description:
      "The model drawn with the configuration's bindings over its present ones, rendered on the CPU after the " +
      'configuration is made and whenever its bindings, or the thumbnail of its model, change; null until then.',
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
/** A configuration on the wire. */
export type Configuration = Static<typeof ConfigurationSchema>;
/** A configuration as stored: its thumbnail as a blob key, which each request turns into its own URL. */
export type StoredConfiguration = Omit<Configuration, 'thumbnail_url'> & { thumbnail_key: string | null };

const name = Type.String({
  minLength: 1,
  maxLength: MAX_CONFIGURATION_NAME_LENGTH,
  description: `1–${MAX_CONFIGURATION_NAME_LENGTH} characters after trimming; unique within the model.`,
});
const description = Type.String({ maxLength: MAX_DESCRIPTION_LENGTH });

/** Body of `POST /api/models/:id/configurations`. */
export const CreateConfigurationBody = Type.Object({
  name,
  description: Type.Optional(description),
  from: Type.Optional(
    Type.String({
      description:
        "`current` copies the model's present bindings; a configuration id of this model copies its bindings.",
    }),
  ),
});
/** Parsed create body. */
export type CreateConfigurationBody = Static<typeof CreateConfigurationBody>;

/** Body of `PATCH /api/models/:id/configurations/:cid`. */
export const PatchConfigurationBody = Type.Object(
  { name: Type.Optional(name), description: Type.Optional(description) },
  { minProperties: 1 },
);
/** Parsed patch body. */
export type PatchConfigurationBody = Static<typeof PatchConfigurationBody>;

/** One binding of a configuration. */
export const ConfigurationBindingSchema = Type.Object({
  group_id: Type.String({ minLength: 1, maxLength: MAX_GROUP_ID_LENGTH }),
  material_id: Type.Integer({ minimum: 1 }),
});
/** A binding as the routes take it. */
export type ConfigurationBinding = Static<typeof ConfigurationBindingSchema>;

/** Body of `PUT` and `POST /…/configurations/:cid/bindings`. */
export const BindingsBody = Type.Object({
  bindings: Type.Array(ConfigurationBindingSchema, {
    maxItems: MAX_GROUP_IDS,
    description: `Up to ${MAX_GROUP_IDS.toLocaleString('en')} bindings; a group named twice takes its last material.`,
  }),
});
/** Parsed bindings body. */
export type BindingsBody = Static<typeof BindingsBody>;

/** Body of `DELETE /…/configurations/:cid/bindings`. */
export const UnbindBody = Type.Object({
  group_ids: Type.Array(Type.String({ minLength: 1, maxLength: MAX_GROUP_ID_LENGTH }), {
    minItems: 1,
    maxItems: MAX_GROUP_IDS,
  }),
});

/** `:id/configurations/:cid`. */
export const ConfigurationParams = Type.Object({
  ...ModelIdParams.properties,
  cid: Type.String({ format: 'uuid', 'x-error-message': 'Invalid configuration id' }),
});

/** A configuration's bindings after a change: how many it has now. */
export const BindingCountSchema = Type.Object({ binding_count: Type.Integer() });

/** A configuration row with its binding count, as the repository reads it. */
export interface ConfigurationRowWithCount {
  id: string;
  model_id: string;
  name: string;
  description: string;
  binding_count: number | string;
  thumbnail_key: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** The stored form of a row. */
export function toStoredConfiguration(row: ConfigurationRowWithCount): StoredConfiguration {
  return {
    id: row.id,
    model_id: row.model_id,
    name: row.name,
    description: row.description,
    binding_count: Number(row.binding_count),
    thumbnail_key: row.thumbnail_key,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/** The wire form of a stored configuration, its thumbnail's URL signed for the request that asks. */
export function toConfiguration(
  { thumbnail_key, ...rest }: StoredConfiguration,
  urlFor: (key: string) => string,
): Configuration {
  return { ...rest, thumbnail_url: thumbnail_key ? urlFor(thumbnail_key) : null };
}
