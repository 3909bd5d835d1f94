// The pool's three kinds of work as messages to a place and the replies read back: a conversion, a thumbnail
// render and an export. How a task finds a place and is watched is the pool's; this is what the task says.
import { Logger, type ILogger } from '@gltf-transform/core';
import { inputBytes } from './input-bytes.ts';
import type { ConversionPoolOptions } from './pool-options.ts';
import type { Task } from './pool-places.ts';
import type {
  ConversionPool,
  PoolConversionRequest,
  PooledConversion,
  PooledFileConversion,
} from './pool-types.ts';
import {
  THREAD_CONVERSION_OPTIONS,
  type LodFileOptions,
  type ParentMessage,
  type ThreadConversionOptions,
  type ThreadMessage,
} from './thread-protocol.ts';

/** The request's pipeline options alone: its logger, signal and callbacks stay in this thread. */
function threadOptions(request: PoolConversionRequest): ThreadConversionOptions {
  return Object.fromEntries(
    THREAD_CONVERSION_OPTIONS.map((key) => [key, request[key]]),
  ) as unknown as ThreadConversionOptions;
}

/** Queues a task whose message `build` writes for its id; resolves with the place's final reply. */
export type SubmitTask = (
  build: (id: number) => ParentMessage,
  settings: Omit<Task, 'id' | 'message' | 'resolve' | 'reject'>,
) => Promise<ThreadMessage>;

/** The pool's public work, each kind sent through `submit`. */
export function createPoolRequests(
  submit: SubmitTask,
  options: ConversionPoolOptions,
): Pick<ConversionPool, 'convert' | 'render' | 'exportModel'> {
  /** The pool's conversion, both ways of returning LODs; the interface's overloads tell callers which they get. */
  async function convert(
    request: PoolConversionRequest & Partial<LodFileOptions>,
  ): Promise<PooledConversion | PooledFileConversion> {
    const logger = request.logger ?? new Logger(Logger.Verbosity.WARN);
    const isolated =
      request.lodDir !== undefined && (await inputBytes(request.source)) > options.isolateAboveBytes;
    const reply = await submit(
      (id) => ({
        type: 'convert',
        id,
        input: {
          ...threadOptions(request),
          logLevel: verbosityOf(logger),
          thumbnail: request.thumbnailColours !== undefined,
          maxMemoryMb: options.maxMemoryMb,
          lodDir: request.lodDir,
          tilesAboveTriangles: request.tilesAboveTriangles,
        },
      }),
      {
        timeoutMs: options.timeoutMs,
        signal: request.signal,
        logger,
        onProgress: request.onProgress,
        thumbnailColours: request.thumbnailColours,
        isolated,
      },
    );
    if (reply.type !== 'converted')
      throw new Error(`Unexpected reply from a conversion thread: ${reply.type}`);
    const thumbnail = reply.thumbnail
      ? Buffer.from(reply.thumbnail.buffer, reply.thumbnail.byteOffset, reply.thumbnail.byteLength)
      : null;
    const processPeakRssMb = reply.memory.processPeakRssMb;
    return {
      ...reply.result,
      thumbnail,
      thumbnailError: reply.thumbnailError,
      ...(processPeakRssMb !== undefined && { processPeakRssMb }),
    } as PooledConversion | PooledFileConversion;
  }

  return {
    convert: convert as ConversionPool['convert'],

    async render(glb, renderOptions = {}, signal, logger = new Logger(Logger.Verbosity.WARN)) {
      const reply = await submit((id) => ({ type: 'render', id, glb, options: renderOptions }), {
        timeoutMs: options.renderTimeoutMs,
        signal,
        logger,
      });
      if (reply.type !== 'rendered')
        throw new Error(`Unexpected reply from a conversion thread: ${reply.type}`);
      return Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength);
    },

    async exportModel(glb, exportOptions, signal) {
      const reply = await submit((id) => ({ type: 'export', id, glb, options: exportOptions }), {
        timeoutMs: options.timeoutMs,
        signal,
        logger: new Logger(Logger.Verbosity.WARN),
      });
      if (reply.type !== 'exported')
        throw new Error(`Unexpected reply from a conversion thread: ${reply.type}`);
      return reply.bytes;
    },
  };
}

function verbosityOf(logger: ILogger): number {
  return logger instanceof Logger ? (logger as unknown as { verbosity: number }).verbosity : 3;
}
