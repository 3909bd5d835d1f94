import type { ExportModelOptions } from '../writers/export-model.ts';
import type { ConvertModelOptions } from '../pipeline/convert-model.ts';
import type { ConversionResult, LodOutput, TilesetOutput } from '../pipeline/types.ts';
import type { MaterialOverride, RenderOptions } from '../render/render-thumbnail.ts';

/**
 * The pipeline options a pool request passes to its thread as they are: all of them survive the structured clone,
 * unlike the request's logger, signal and callbacks.
 */
export const THREAD_CONVERSION_OPTIONS = [
  'modelId',
  'source',
  'lods',
  'compressLods',
  'lodTextures',
  'maxTriangles',
  'previousParts',
  'newGroupIdPrefix',
] as const satisfies readonly (keyof ConvertModelOptions)[];

/** Those options, typed as the pipeline declares them. */
export type ThreadConversionOptions = Pick<ConvertModelOptions, (typeof THREAD_CONVERSION_OPTIONS)[number]>;

/** Where the thread writes a conversion's LODs and tileset, so their bytes never reach the parent's heap. */
export interface LodFileOptions {
  /** Folder to write the LODs to (`lod<level>.glb`), replying with {@link LodFile}s instead of their bytes. */
  lodDir: string;
  /**
   * Makes a 3D Tiles tileset of a model above this many triangles (`TILES_ABOVE_TRIANGLES`), written into
   * `<lodDir>/tileset/`; none when absent.
   */
  tilesAboveTriangles?: number;
}

/** A conversion as the parent hands it to a conversion thread. */
export interface ConvertTask {
  type: 'convert';
  id: number;
  input: ThreadConversionOptions &
    Partial<LodFileOptions> & {
      /** glTF-Transform verbosity: DEBUG 1, INFO 2, WARN 3, ERROR 4. */
      logLevel: number;
      /** Renders a thumbnail from the LOD the thread holds, asking the parent for the parts' colours first. */
      thumbnail: boolean;
      /** Heap plus WebAssembly memory the job may reach, in MiB; above it the job fails naming the limit. */
      maxMemoryMb: number;
    };
}

/** A level of detail the thread wrote to a file: where, how big, and its SHA-256, instead of its bytes. */
export interface LodFile extends Omit<LodOutput, 'glb'> {
  file: string;
  size: number;
  /** SHA-256 of the file, in hex. */
  sha256: string;
}

/** A tileset the thread wrote: `tileset.json` and `tiles/…` in `dir`. */
export interface TilesetFiles extends TilesetOutput {
  dir: string;
}

/** A conversion whose LODs (and tileset) went to files. */
export interface FileConversionResult extends Omit<ConversionResult, 'lods' | 'tileset'> {
  lods: LodFile[];
  tileset: TilesetFiles | null;
}

/** A thumbnail of an already converted model. */
export interface RenderTask {
  type: 'render';
  id: number;
  glb: Uint8Array;
  options: Partial<RenderOptions>;
}

/** An export of a converted LOD with the bound materials baked in. */
export interface ExportTask {
  type: 'export';
  id: number;
  glb: Uint8Array;
  options: ExportModelOptions;
}

/** The parent's answer to {@link ThreadMessage} `colours`: the materials bound to the model's parts. */
export interface ColoursReply {
  type: 'colours';
  id: number;
  overrides: [string, MaterialOverride][];
}

/** What the parent posts to a conversion thread. */
export type ParentMessage = ConvertTask | RenderTask | ExportTask | ColoursReply;

/**
 * Memory of the thread (its heap plus external memory, WebAssembly included), in MiB: what it holds after a task,
 * and how far the task took it above what the thread held when the task began (sampled at each progress report).
 */
export type ThreadMemory = {
  retainedMb: number;
  grewMb: number;
  /** Whether the task loaded a WebAssembly runtime (assimp, OpenCASCADE, web-ifc), which the thread keeps. */
  loadedRuntime: boolean;
  /** Peak resident memory of the process, in MiB, when the task ran in a process of its own. */
  processPeakRssMb?: number;
};

/** What a conversion thread posts to the parent. */
export type ThreadMessage =
  /** The thread has loaded the pipeline; `statFile` is where its processor time is read (absent without /proc). */
  | { type: 'ready'; statFile?: string }
  | { type: 'progress'; id: number; percent: number; stage: string }
  /** The thread enters a synchronous step that reports nothing for up to `ms` (a WebAssembly import). */
  | { type: 'busy'; id: number; ms: number }
  | { type: 'log'; id: number; level: 'debug' | 'info' | 'warn' | 'error'; text: string }
  | { type: 'colours'; id: number; groupIds: string[] }
  /**
   * A piece of a finished conversion's parts, in order, sent ahead of `converted`: the parent reads each piece in
   * a task of its own, so other requests are answered between them (100,000 parts read in one took a second).
   */
  | { type: 'parts'; id: number; parts: ConversionResult['parts'] }
  | {
      type: 'converted';
      id: number;
      /** The result, its `parts` empty: they came before it in `parts` messages, `partCount` of them. */
      result: ConversionResult | FileConversionResult;
      partCount: number;
      thumbnail: Uint8Array | null;
      thumbnailError: string | null;
      memory: ThreadMemory;
    }
  | { type: 'rendered'; id: number; png: Uint8Array; memory: ThreadMemory }
  | { type: 'exported'; id: number; bytes: Uint8Array; memory: ThreadMemory }
  | { type: 'failed'; id: number; name: string; message: string; memory: ThreadMemory };
