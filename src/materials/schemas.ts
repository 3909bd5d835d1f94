import { Type, type Static, type TNumber, type TSchema } from '@sinclair/typebox';

// Bounds of Number.MAX_VALUE exist only to refuse Infinity (JSON's 1e400); they are not part of any message.
const FINITE = Number.MAX_VALUE;
const channel = (description: string) => Type.Number({ minimum: 0, maximum: 255, description });
const unit = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

/** Upper bound on `group_ids` in one bind, unbind or lookup request. */
export const MAX_GROUP_IDS = 100_000;
/** Longest accepted `group_id`. */
export const MAX_GROUP_ID_LENGTH = 256;
/** Longest accepted material name, after trimming. */
export const MAX_NAME_LENGTH = 255;

const materialFields = {
  diffuse_r: channel('Diffuse red, 0–255 (default 255).'),
  diffuse_g: channel('Diffuse green, 0–255 (default 255).'),
  diffuse_b: channel('Diffuse blue, 0–255 (default 255).'),
  alpha: channel('Opacity, 0–255 (default 255).'),
  shininess: Type.Number({
    minimum: 0,
    maximum: FINITE,
    description: 'Specular exponent, ≥ 0 (default 0).',
    'x-error-message': 'shininess must be a finite number >= 0',
  }),
  specular_r: channel('Specular red, 0–255 (default 0).'),
  specular_g: channel('Specular green, 0–255 (default 0).'),
  specular_b: channel('Specular blue, 0–255 (default 0).'),
  ambient_r: channel('Ambient red, 0–255 (default 0).'),
  ambient_g: channel('Ambient green, 0–255 (default 0).'),
  ambient_b: channel('Ambient blue, 0–255 (default 0).'),
  metallic: unit('Metalness, 0–1 (default 0).'),
  roughness: unit('Roughness, 0–1 (default 0.5).'),
  reflectance: unit('Reflectance, 0–1 (default 0.5).'),
};

/** The numeric fields of a material, in the order the API shows them. */
export const MATERIAL_NUMBER_FIELDS = Object.keys(materialFields) as (keyof typeof materialFields)[];

const name = Type.String({
  description: 'Display name, 1–255 characters after trimming; need not be unique.',
});

/** A material as every route returns it. */
export const MaterialSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  ...(Object.fromEntries(MATERIAL_NUMBER_FIELDS.map((field) => [field, Type.Number()])) as Record<
    keyof typeof materialFields,
    TNumber
  >),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

/** A material with every field typed, as the repository produces it. */
export interface Material extends Record<keyof typeof materialFields, number> {
  id: number;
  name: string;
  created_at: string;
  updated_at: string;
}

/** The default entry of the bulk lookup: `id` -1, no timestamps. */
export type DefaultMaterial = Omit<Material, 'created_at' | 'updated_at'>;

/** Body of `POST /materials`; unknown fields are ignored. */
export const CreateMaterialBody = Type.Object({
  name,
  ...Type.Partial(Type.Object(materialFields)).properties,
});
/** Parsed create body. */
export type CreateMaterialBody = Static<typeof CreateMaterialBody>;

/** Body of `PUT /materials/:id`: any subset of the create fields; omitted fields keep their value. */
export const UpdateMaterialBody = Type.Partial(CreateMaterialBody);
/** Parsed update body. */
export type UpdateMaterialBody = Static<typeof UpdateMaterialBody>;

/** `:id` of every `/materials/:id…` route. */
export const MaterialIdParams = Type.Object({
  id: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Material id, a positive integer.',
    'x-error-message': 'id must be a positive integer',
  }),
});

const page = Type.Integer({
  default: 1,
  maximum: 2 ** 31 - 1,
  description: 'Page number; values below 1 read as 1.',
});
const pageSize = Type.Integer({
  default: 20,
  maximum: 2 ** 31 - 1,
  description: 'Items per page; below 1 reads as 20, above 100 as 100.',
});

/** Query of `GET /materials`. */
export const ListMaterialsQuery = Type.Object({
  page: Type.Optional(page),
  page_size: Type.Optional(pageSize),
  name: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        'Substring of the name, case ignored in every script (STRASSE finds Straße); % and _ are literal.',
    }),
  ),
});

/** Query of `GET /materials/:id/groups`. */
export const PageQuery = Type.Object({ page: Type.Optional(page), page_size: Type.Optional(pageSize) });

const groupIds = Type.Array(Type.String({ minLength: 1, maxLength: MAX_GROUP_ID_LENGTH }), {
  minItems: 1,
  maxItems: MAX_GROUP_IDS,
  description: `1 to ${MAX_GROUP_IDS.toLocaleString('en')} group ids of 1–${MAX_GROUP_ID_LENGTH} characters; duplicates are collapsed.`,
});

/** Body of the bind and unbind routes. */
export const GroupIdsBody = Type.Object({ group_ids: groupIds });

/** Body of `POST /groups/materials`. */
export const LookupBody = Type.Object({
  group_ids: groupIds,
  include_default: Type.Optional(
    Type.Boolean({
      description: 'When true, groups without a binding appear with the default material (id -1).',
    }),
  ),
  configuration_id: Type.Optional(
    Type.String({
      format: 'uuid',
      description:
        'A model configuration whose bindings are shown over the present ones for the groups it binds.',
    }),
  ),
});

/** A material inside a lookup result; the default entry has no timestamps. */
export const LookupMaterialSchema = Type.Object({
  ...MaterialSchema.properties,
  created_at: Type.Optional(Type.String({ format: 'date-time' })),
  updated_at: Type.Optional(Type.String({ format: 'date-time' })),
});

/** Wraps a payload schema in the material API's success envelope. */
export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ code: Type.Literal(0), message: Type.String(), data });
}

/** The material API's error body: `code` equals the HTTP status. */
export const MaterialErrorSchema = Type.Object({ code: Type.Integer(), message: Type.String() });

/** A page of items with the totals the spec shows. */
export function paginated<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    page_size: Type.Integer(),
  });
}
