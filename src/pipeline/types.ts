import type { Document, ILogger } from '@gltf-transform/core';
import type { Bounds } from '../gltf/measure-geometry.ts';
import type { PartProperties } from './part-properties.ts';

/** Model formats Vitrine converts, named by the lower-case extension of the model file. */
export const MODEL_FORMATS = [
  'glb',
  'gltf',
  'obj',
  'fbx',
  'stl',
  'ply',
  'dae',
  '3ds',
  'step',
  'stp',
  'iges',
  'igs',
  'ifc',
] as const;

/** One of {@link MODEL_FORMATS}. */
export type ModelFormat = (typeof MODEL_FORMATS)[number];

// An axis-aligned box in glTF scene units, defined with the code that measures it.
export type { Bounds };

/** Length units an uploader may declare for a file that states none, in metres. */
export const LENGTH_UNITS = { mm: 0.001, cm: 0.01, m: 1, in: 0.0254, ft: 0.3048 } as const;

/** One of {@link LENGTH_UNITS}. */
export type LengthUnit = keyof typeof LENGTH_UNITS;

/** Up axes an uploader may declare for a file that states none. */
export const UP_AXES = ['y', 'z'] as const;

/** One of {@link UP_AXES}. */
export type DeclaredUp = (typeof UP_AXES)[number];

/** A model file on local disk, with the folder that holds the resources it refers to. */
export interface ImportSource {
  /** Absolute path of the model file. */
  file: string;
  /** Absolute path of the folder its relative references (textures, .bin, .mtl) resolve against. */
  dir: string;
  /** Format of `file`. */
  format: ModelFormat;
  /** The uploader's unit for a file that states none (STL, OBJ, PLY…); metres when absent. Ignored when the file has one. */
  unit?: LengthUnit;
  /** The uploader's up axis for a file that states none; +Y when absent. Ignored when the file has one. */
  up?: DeclaredUp;
}

/** What an importer hands to the rest of the pipeline: a glTF document in metres with +Y up. */
export interface ImportResult {
  document: Document;
  /** Triangles the importing library reports for the source, to check that none were lost. */
  sourceTriangleCount?: number;
  /** Length unit of the source before it was scaled to metres (`m`, `mm`, `in`, … or `unknown`). */
  sourceUnit: string;
  /** Up axis of the source before it was turned to +Y (`+Y`, `+Z`, …). */
  sourceUpAxis: string;
  /** The importer merged identical vertices itself, so clean-up need not weld again. */
  welded?: boolean;
}

/** Shared services a pipeline step receives instead of importing them itself. */
export interface StepContext {
  /** Logger; each step prefixes its lines with its own name. */
  logger: ILogger;
  /** Reports progress of the current step as a fraction 0–1. */
  onProgress?: (fraction: number) => void;
  /** Most triangles an importer may produce; one that can tell from a header fails before reading on. */
  maxTriangles?: number;
}

/** A pipeline step that turns one family of formats into a glTF-Transform document. */
export interface Importer {
  /** Step name used in logs and errors, e.g. `import-assimp`. */
  readonly name: string;
  /** Formats this importer reads. */
  readonly formats: readonly ModelFormat[];
  /** Reads the source; throws a {@link ConversionError} with a clear message for bad input. */
  read(source: ImportSource, context: StepContext): Promise<ImportResult>;
}

/** A model part: a node that carries a mesh, as listed by `GET /api/models/:id/parts`. */
export interface PartInfo {
  group_id: string;
  name: string;
  /** Names of the ancestors joined by `/`. */
  path: string;
  triangle_count: number;
  vertex_count: number;
  bounds: Bounds;
  /** Properties read from the source (IFC property sets, glTF extras, STEP product…), within the caps of part-properties.ts. */
  properties: PartProperties;
  /** What the part is made of, hashed, so two versions of a model can tell which of its parts changed and how. */
  fingerprint: PartFingerprint;
}

/**
 * Hashes of one part (hex strings), compared between versions of a model: equal hashes mean no change of that kind.
 * See part-fingerprint.ts for what each covers and the tolerance of the geometry hash.
 */
export interface PartFingerprint {
  /** The welded triangles in the mesh's own frame, less their offset, within a tolerance: not where the part is. */
  geometry: string;
  /** Where the part is: its node's world matrix combined with the geometry's offset, quantized. */
  transform: string;
  /** Canonical JSON of its properties. */
  properties: string;
  /** The materials of its primitives. */
  material: string;
}

/** A part of the version a new conversion continues, which a part of the new version may take the identity of. */
export interface PreviousPart {
  group_id: string;
  name: string;
  /** Names of the ancestors joined by `/`, as {@link PartInfo.path}. */
  path: string;
  /** Null for a part stored before fingerprints existed: it can be matched by id, path and name only. */
  fingerprint: PartFingerprint | null;
}

/** One level of detail written by the pipeline. */
export interface LodOutput {
  level: 0 | 1 | 2;
  glb: Uint8Array;
  triangle_count: number;
  /** Largest geometric error against LOD 0, as a share of the model's bounding-box diagonal (0 for LOD 0). */
  error: number;
  /**
   * Whether this level is a simplified file of its own; false for LOD 0 and for a level that could not shrink
   * enough within its error bound, whose `glb` is then the level before it (the same bytes, not a copy).
   */
  reduced: boolean;
}

/** The 3D Tiles tileset a conversion wrote (its files went to the sink it was given as they were made). */
export interface TilesetOutput {
  /** Tile files besides `tileset.json`. */
  tile_count: number;
  /** Bytes of every file, `tileset.json` included. */
  size: number;
  /** Triangles of the leaves together (the model's). */
  leaf_triangles: number;
}

/** Everything the conversion of one model produces. */
export interface ConversionResult {
  lods: LodOutput[];
  /** The tileset, for a model above the tiling threshold; null otherwise. */
  tileset: TilesetOutput | null;
  /**
   * With a tileset: a GLB of a cut through its tree (tile-cut-glb.ts: its tiles laid out as one, parts as feature
   * ids like a batched level's), which the thumbnail is rendered from instead of a level; null otherwise.
   */
  tilesetCutGlb: Uint8Array | null;
  parts: PartInfo[];
  triangle_count: number;
  vertex_count: number;
  bounds: Bounds;
  source_unit: string;
  source_up_axis: string;
}

/** An error caused by the input file rather than by Vitrine: its message is shown to the user as the model's `error`. */
export class ConversionError extends Error {
  override readonly name = 'ConversionError';
}
