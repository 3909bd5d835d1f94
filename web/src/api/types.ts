/** Wire types of the two public APIs, spelled exactly as the server sends them. */

/** Conversion state of a catalog model. */
export type ModelStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** Every status value, in lifecycle order, for the status filter. */
export const MODEL_STATUSES: readonly ModelStatus[] = ['pending', 'processing', 'completed', 'failed'];

/** An axis-aligned box in scene units. */
export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

/** One level of detail of a converted model. */
export interface Lod {
  level: number;
  url: string;
  triangle_count: number;
  size: number;
}

/** A catalog model record. */
export interface Model {
  id: string;
  name: string;
  description: string | null;
  original_filename: string;
  format: string;
  file_size: number;
  status: ModelStatus;
  progress: number;
  error: string | null;
  model_url: string | null;
  thumbnail_url: string | null;
  /** The upload as received, for download. */
  original_url: string;
  lods: Lod[];
  triangle_count: number | null;
  vertex_count: number | null;
  part_count: number | null;
  bounds: Bounds | null;
  tags: string[];
  created_at: string;
  updated_at: string;
}

/** A mesh-carrying node of a converted model, with the material bound to its group. */
export interface Part {
  group_id: string;
  name: string;
  path: string;
  triangle_count: number;
  vertex_count: number;
  bounds: Bounds | null;
  material: Material | null;
}

/** The editable fields of a material; everything but identity and timestamps. */
export interface MaterialFields {
  name: string;
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
}

/** A stored material (or the default entry, id -1, which has no timestamps). */
export interface Material extends MaterialFields {
  id: number;
  created_at?: string;
  updated_at?: string;
}

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
export type ModelSort =
  | 'created_at'
  | '-created_at'
  | 'name'
  | '-name'
  | 'file_size'
  | '-file_size'
  | 'triangle_count'
  | '-triangle_count';

/** Query of the catalog list route. */
export interface ModelQuery {
  search?: string;
  status?: ModelStatus | '';
  format?: string;
  tag?: string;
  sort?: ModelSort;
  limit?: number;
  offset?: number;
}

/** A page of catalog models with the paging values the server used. */
export interface ModelPage {
  models: Model[];
  total: number;
  limit: number;
  offset: number;
}

/** Metadata a model accepts in PATCH. */
export interface ModelPatch {
  name?: string;
  description?: string;
  tags?: string[];
}
