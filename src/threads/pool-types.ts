import type { ILogger } from '@gltf-transform/core';
import type { ExportModelOptions } from '../writers/export-model.ts';
import type { ConversionStage } from '../pipeline/convert-model.ts';
import type { ConversionResult } from '../pipeline/types.ts';
import type { MaterialOverride, RenderOptions } from '../render/render-thumbnail.ts';
import type { FileConversionResult, LodFileOptions, ThreadConversionOptions } from './thread-protocol.ts';

/** One conversion for the pool: the pipeline's options plus what the caller wants back. */
export interface PoolConversionRequest extends ThreadConversionOptions {
  logger?: ILogger;
  onProgress?: (percent: number, stage: ConversionStage | 'thumbnail') => void;
  /** Aborting terminates the job's thread and rejects. */
  signal?: AbortSignal;
  /**
   * When given, the thread renders the thumbnail from the LOD it already holds, with the colours this returns
   * for the model's parts.
   */
  thumbnailColours?: (groupIds: string[]) => Promise<ReadonlyMap<string, MaterialOverride>>;
}

/** A conversion whose LODs (and tileset) the thread writes into `lodDir`, so their bytes never reach the caller's heap. */
export type PoolFileConversionRequest = PoolConversionRequest & LodFileOptions;

/** The thumbnail of a conversion when one was asked for, or why it could not be rendered. */
export interface PooledThumbnail {
  thumbnail: Buffer | null;
  thumbnailError: string | null;
}

/** A conversion's result, with its thumbnail. */
export interface PooledConversion extends ConversionResult, PooledThumbnail {}

/** A conversion's result with its LODs in files, with its thumbnail. */
export interface PooledFileConversion extends FileConversionResult, PooledThumbnail {
  /** Peak resident memory of the process the conversion ran in, in MiB, when it had one of its own. */
  processPeakRssMb?: number;
}

/** What the pool is doing, for tests, health and benchmarks. */
export interface PoolStats {
  /** Places in the pool now: threads, and processes each running a conversion in a thread's place. */
  threads: number;
  /** Threads started since the pool was created (recycled and crashed ones are replaced). */
  started: number;
  /** Tasks waiting for a free thread. */
  queued: number;
  /** Conversions running in a process of their own now. */
  processes: number;
}

/** Long-lived conversion threads that run conversions and thumbnail renders, one task per thread at a time. */
export interface ConversionPool {
  /**
   * Converts a model in a warm thread; rejects with a message fit for the user on any failure. With `lodDir` the
   * LODs come back as files in that folder, otherwise as bytes.
   */
  convert(request: PoolFileConversionRequest): Promise<PooledFileConversion>;
  convert(request: PoolConversionRequest): Promise<PooledConversion>;
  /** Renders a thumbnail of a GLB in a warm thread; the renderer's warnings go to `logger`. */
  render(
    glb: Uint8Array,
    options?: Partial<RenderOptions>,
    signal?: AbortSignal,
    logger?: ILogger,
  ): Promise<Buffer>;
  /** Writes an export in a warm thread under the conversion's time limit; rejects with the export's error. */
  exportModel(glb: Uint8Array, options: ExportModelOptions, signal?: AbortSignal): Promise<Uint8Array>;
  stats(): PoolStats;
  /** Rejects queued tasks, terminates every thread. */
  close(): Promise<void>;
}
