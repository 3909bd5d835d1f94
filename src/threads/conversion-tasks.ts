// What a conversion thread or process does: loads the pipeline and the renderer once, then runs conversions,
// thumbnails and exports one at a time as the pool posts them.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ILogger } from '@gltf-transform/core';
import { thumbnailLevel } from '../render/thumbnail-level.ts';
import { exportModel } from '../writers/export-model.ts';
import { convertModel } from '../pipeline/convert-model.ts';
import { peakRssBytes } from '../pipeline/peak-rss.ts';
import { runtimeLoads } from '../pipeline/import/runtime-loads.ts';
import { fullCollection } from './full-collection.ts';
import { ConversionError, type ConversionResult } from '../pipeline/types.ts';
import {
  NAME as RENDER_STEP,
  renderThumbnailDetailed,
  type MaterialOverride,
  type RenderOptions,
} from '../render/render-thumbnail.ts';
import type {
  ConvertTask,
  ExportTask,
  FileConversionResult,
  LodFile,
  ParentMessage,
  RenderTask,
  ThreadMemory,
  ThreadMessage,
} from './thread-protocol.ts';

const MIB = 1024 * 1024;
/** Parts a `parts` message carries: about 50 ms of the parent's reading each (100,000 took a second in one). */
const PARTS_PER_MESSAGE = 5_000;

/** How tasks reach a conversion thread or process, and how it answers. */
export interface TaskPort {
  /** Posts a message to the pool; `transfer` lists buffers a thread may hand over instead of copying. */
  post(message: ThreadMessage, transfer?: ArrayBuffer[]): void;
  onMessage(listener: (message: ParentMessage) => void): void;
  /**
   * Whether the port's process runs nothing but these tasks: its replies then carry the process's peak resident
   * memory, which is the task's own.
   */
  ownProcess: boolean;
  /** Where the pool reads this thread's processor time (`/proc/<pid>/task/<tid>/stat`), sent with `ready`. */
  statFile?: string;
}

let port: TaskPort;
const post = (message: ThreadMessage, transfer: ArrayBuffer[] = []): void => port.post(message, transfer);
const colourRequests = new Map<number, (overrides: Map<string, MaterialOverride>) => void>();

/** Heap and external memory of this thread now (WebAssembly memories count as external), in MiB. */
function heldMb(): number {
  const usage = process.memoryUsage();
  return Math.round((usage.heapTotal + usage.external) / MIB);
}

/** Where a task began: the thread's memory, and the WebAssembly runtimes loaded by then. */
interface TaskStart {
  mb: number;
  runtimes: number;
}

function taskStart(): TaskStart {
  return { mb: heldMb(), runtimes: runtimeLoads() };
}

/**
 * What the thread holds now, how far the running task took it above where it began at its highest `peakMb`, and
 * whether it loaded a runtime.
 */
function memory(start: TaskStart, peakMb = 0): ThreadMemory {
  const retainedMb = heldMb();
  return {
    retainedMb,
    grewMb: Math.max(0, Math.max(peakMb, retainedMb) - start.mb),
    loadedRuntime: runtimeLoads() > start.runtimes,
    ...(port.ownProcess && { processPeakRssMb: Math.round(peakRssBytes() / MIB) }),
  };
}

function loggerFor(id: number, level: number): ILogger {
  const log =
    (name: 'debug' | 'info' | 'warn' | 'error', threshold: number) =>
    (text: string): void => {
      if (level <= threshold) post({ type: 'log', id, level: name, text });
    };
  return { debug: log('debug', 1), info: log('info', 2), warn: log('warn', 3), error: log('error', 4) };
}

/** A copy in its own buffer, safe to transfer (a small Buffer may share Node's pool with others). */
function ownBytes(png: Buffer): Uint8Array {
  return new Uint8Array(png);
}

async function convert(task: ConvertTask): Promise<void> {
  const { id, input } = task;
  const start = taskStart();
  let peakMb = start.mb;
  const checkMemory = (): void => {
    const retainedMb = heldMb();
    peakMb = Math.max(peakMb, retainedMb);
    if (retainedMb > input.maxMemoryMb) {
      throw new ConversionError(
        `The conversion needs more memory than the limit of ${input.maxMemoryMb} MB ` +
          `(CONVERSION_MAX_MEMORY_MB): it reached ${retainedMb} MB`,
      );
    }
  };
  const logger = loggerFor(id, input.logLevel);
  const tileDir = input.lodDir && path.join(input.lodDir, 'tileset');
  const result = await convertModel({
    ...input,
    // Each tile goes to disk as soon as it is made: the tileset is never held whole.
    ...(tileDir &&
      input.tilesAboveTriangles !== undefined && {
        tiles: {
          aboveTriangles: input.tilesAboveTriangles,
          onFile: async (file: string, bytes: Uint8Array) => {
            const target = path.join(tileDir, file);
            await mkdir(path.dirname(target), { recursive: true });
            await writeFile(target, bytes);
          },
        },
      }),
    logger,
    onProgress: (percent, stage) => {
      checkMemory();
      post({ type: 'progress', id, percent, stage });
    },
    onBusy: (ms) => post({ type: 'busy', id, ms }),
    collectGarbage: fullCollection(),
  });
  checkMemory();
  let thumbnail: Uint8Array | null = null;
  let thumbnailError: string | null = null;
  if (input.thumbnail) {
    post({ type: 'progress', id, percent: 100, stage: 'thumbnail' });
    const started = performance.now();
    const lod = thumbnailLevel(result.lods);
    try {
      const overrides = await new Promise<Map<string, MaterialOverride>>((resolve) => {
        colourRequests.set(id, resolve);
        post({ type: 'colours', id, groupIds: result.parts.map((part) => part.group_id) });
      });
      // A tiled model draws from a cut through its tile tree: a few hundred thousand triangles, whatever its size.
      thumbnail = await renderLogged(id, result.tilesetCutGlb ?? lod.glb, { materialOverrides: overrides });
      // After convert-model's stage log: the colours asked of the parent and the render, after the last stage.
      logger.debug(`${RENDER_STEP}: thumbnail rendered in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      // A model without a thumbnail is still a good model; regeneration can try again.
      thumbnailError = error instanceof Error ? error.message : String(error);
    }
  }
  const transfer = new Set<ArrayBuffer>();
  if (thumbnail) transfer.add(thumbnail.buffer as ArrayBuffer);
  let reply: ConversionResult | FileConversionResult = result;
  if (input.lodDir) {
    // Written here, the bytes never reach the parent's heap, where they would wait for its next collection.
    const tileset = result.tileset && tileDir ? { ...result.tileset, dir: tileDir } : null;
    // The cut was for the thumbnail alone: it does not go back.
    reply = { ...result, lods: await writeLods(result, input.lodDir), tileset, tilesetCutGlb: null };
  } else {
    // Transferred, not copied: LOD buffers can be hundreds of megabytes.
    for (const lod of result.lods) transfer.add(lod.glb.buffer as ArrayBuffer);
  }
  for (let first = 0; first < reply.parts.length; first += PARTS_PER_MESSAGE) {
    post({ type: 'parts', id, parts: reply.parts.slice(first, first + PARTS_PER_MESSAGE) });
  }
  post(
    {
      type: 'converted',
      id,
      result: { ...reply, parts: [] },
      partCount: reply.parts.length,
      thumbnail,
      thumbnailError,
      memory: memory(start, peakMb),
    },
    [...transfer],
  );
}

/** Writes each LOD to `lod<level>.glb` in `dir`, with its size and SHA-256 (a level not reduced shares its file). */
async function writeLods(result: ConversionResult, dir: string): Promise<LodFile[]> {
  await mkdir(dir, { recursive: true });
  const files: LodFile[] = [];
  for (const { glb, ...lod } of result.lods) {
    const previous = files[files.length - 1];
    // A level that could not shrink is the level before it: one file serves both.
    if (!lod.reduced && previous) {
      files.push({ ...previous, ...lod });
      continue;
    }
    const file = path.join(dir, `lod${lod.level}.glb`);
    await writeFile(file, glb);
    const sha256 = createHash('sha256').update(glb).digest('hex');
    files.push({ ...lod, file, size: glb.byteLength, sha256 });
  }
  return files;
}

/** Renders a thumbnail, passing the renderer's warnings to the parent's log for this task. */
async function renderLogged(
  id: number,
  glb: Uint8Array,
  options: Partial<RenderOptions>,
): Promise<Uint8Array> {
  const { png, warnings } = await renderThumbnailDetailed(glb, options);
  for (const warning of warnings)
    post({ type: 'log', id, level: 'warn', text: `${RENDER_STEP}: ${warning}` });
  return ownBytes(png);
}

async function render(task: RenderTask): Promise<void> {
  const start = taskStart();
  const bytes = await renderLogged(task.id, task.glb, task.options);
  post({ type: 'rendered', id: task.id, png: bytes, memory: memory(start) }, [bytes.buffer as ArrayBuffer]);
}

async function runExport(task: ExportTask): Promise<void> {
  const start = taskStart();
  const bytes = await exportModel(task.glb, task.options);
  post({ type: 'exported', id: task.id, bytes, memory: memory(start) }, [bytes.buffer as ArrayBuffer]);
}

/** Runs one task; its failure is posted back by the caller. */
function runTask(message: ConvertTask | RenderTask | ExportTask): Promise<void> {
  switch (message.type) {
    case 'convert':
      return convert(message);
    case 'render':
      return render(message);
    case 'export':
      return runExport(message);
  }
}

/** Serves the pool's tasks on `taskPort` for as long as the thread or process lives, and tells the pool it is ready. */
export function serveConversionTasks(taskPort: TaskPort): void {
  port = taskPort;
  port.onMessage((message) => {
    if (message.type === 'colours') {
      colourRequests.get(message.id)?.(new Map(message.overrides));
      colourRequests.delete(message.id);
      return;
    }
    const start = taskStart();
    runTask(message).catch((error: unknown) => {
      const { name, message: text } = error instanceof Error ? error : new Error(String(error));
      post({ type: 'failed', id: message.id, name, message: text, memory: memory(start) });
    });
  });
  post({ type: 'ready', ...(port.statFile && { statFile: port.statFile }) });
}
