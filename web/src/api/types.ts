/**
 * Wire types of the public APIs, derived from the server's TypeBox schemas so they cannot drift from what the
 * server sends. Type-only imports: none of the server's code reaches the viewer's bundle.
 */
import type { Static } from '@sinclair/typebox';
import type {
  ListModelsQuery,
  LodSchema,
  Model as WireModel,
  ModelStatus as WireModelStatus,
  ModelSort as WireModelSort,
  Part as WirePart,
  PartWithPropertiesSchema,
  PatchModelBody,
} from '../../../src/catalog/schemas.ts';
import type { LookupMaterialSchema } from '../../../src/materials/schemas.ts';

/** Conversion state of a catalog model. */
export type ModelStatus = WireModelStatus;

/** Every status value, in lifecycle order, for the status filter. */
export const MODEL_STATUSES = [
  'pending',
  'processing',
  'completed',
  'failed',
] as const satisfies readonly ModelStatus[];

// Fails to compile when the server gains a status the list above lacks.
const everyStatusListed: Exclude<ModelStatus, (typeof MODEL_STATUSES)[number]> extends never ? true : false =
  true;
void everyStatusListed;

/** A catalog model record. */
export type Model = WireModel;

/** An axis-aligned box in metres. */
export type Bounds = NonNullable<Model['bounds']>;

/** One level of detail of a converted model. */
export type Lod = Static<typeof LodSchema>;

/** A mesh-carrying node of a converted model, with the material bound to its group. */
export type Part = WirePart;

/** A part with the properties read from its source file, as the single-part route answers. */
export type PartWithProperties = Static<typeof PartWithPropertiesSchema>;

/** A stored material, or the default entry of a lookup (id -1, no timestamps). */
export type Material = Static<typeof LookupMaterialSchema>;

/** The editable fields of a material; everything but identity and timestamps. */
export type MaterialFields = Omit<Material, 'id' | 'created_at' | 'updated_at'>;

/** A page of a material-service list. */
export interface Paged<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/** One entry of the bulk group → material lookup. */
export interface GroupMaterial {
  group_id: string;
  material: Material;
}

/** Orders the catalog list accepts: a field, or with a leading `-` descending. */
export type ModelSort = WireModelSort;

/** Query of the catalog list route; an empty status means any. */
export type ModelQuery = Omit<Static<typeof ListModelsQuery>, 'status'> & { status?: ModelStatus | '' };

/** A page of catalog models with the paging values the server used. */
export interface ModelPage {
  models: Model[];
  total: number;
  limit: number;
  offset: number;
}

/** Metadata a model accepts in PATCH. */
export type ModelPatch = PatchModelBody;
