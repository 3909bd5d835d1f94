import { stat } from 'node:fs/promises';
import { Logger } from '@gltf-transform/core';
import type { Document, ILogger, PlatformIO } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { cleanUp } from './clean-up.ts';
import type { BatchPartsOptions } from './lods/batch-parts.ts';
import type { LodCompression } from './lods/compress-lod.ts';
import { computeStats } from './compute-stats.ts';
import type { DocumentStats } from './compute-stats.ts';
import { createNodeIO } from '../gltf/create-io.ts';
import { extractParts } from './extract-parts.ts';
import { importerFor } from './import/importers.ts';
import { keepIfSmaller } from './lods/keep-smaller-levels.ts';
import { makeLods, MAKE_LODS_DEFAULTS } from './lods/make-lods.ts';
import type { MakeLodsOptions } from './lods/make-lods.ts';
import { checkTriangleLimit } from './limits.ts';
import { toMetresYUp } from './import/import-frame.ts';
import { markTwoSided } from './two-sided.ts';
import { createStageLog } from './stage-log.ts';
import type { LodTextureFormat, TextureLadderCache } from './lods/texture-ladder.ts';
import { MAKE_TILES_DEFAULTS } from './tiles/make-tiles.ts';
import { writeTileset } from './tiles/write-tileset.ts';
import { writeFirstLevel, writtenLevel } from './lods/level-files.ts';
import type { KeptCopy } from './lods/level-files.ts';
import { coarseLeaves, planTiling } from './tiles/tiling-plan.ts';
import type { CoarseLeaves } from './tiles/tiling-plan.ts';
import type { SplitNode } from './tiles/split-tree.ts';
import type { TriangleSoup } from './tiles/triangle-soup.ts';
import { ConversionError, LENGTH_UNITS } from './types.ts';
import type {
  ConversionResult,
  ImportResult,
  ImportSource,
  LodOutput,
  PartInfo,
  PreviousPart,
  TilesetOutput,
} from './types.ts';

/** Step name used in logs. */
export const NAME = 'convert-model';

/** Pipeline stages, in order, as reported with progress. */
export type ConversionStage = 'import' | 'clean-up' | 'parts' | 'lods' | 'tiles' | 'write';

/** Options of {@link convertModel}. */
export interface ConvertModelOptions {
  /** Model id; prefixes generated part group ids. */
  modelId: string;
  /** The parts of the version this one continues: a part that matches one keeps its group id (extract-parts.ts). */
  previousParts?: PreviousPart[];
  /** Prefix of the group ids of new parts, in place of `<modelId>:` (the catalog's `<modelId>:v<n>-`). */
  newGroupIdPrefix?: string;
  /** The model file to convert (an archive already extracted). */
  source: ImportSource;
  /** Logger for every step; warnings by default. */
  logger?: ILogger;
  /** Progress as a whole percentage 0–100, with the stage running. */
  onProgress?: (percent: number, stage: ConversionStage) => void;
  /** LOD settings, over {@link MAKE_LODS_DEFAULTS}. */
  lods?: Partial<Omit<MakeLodsOptions, 'simplifier'>>;
  /**
   * Geometry compression of every level (`GLB_COMPRESSION`, `meshopt` unless set): lossless on LOD 0, quantized on
   * LOD 1 and 2. Plain (`none`) when left out here: the service always passes its setting.
   */
  compressLods?: LodCompression;
  /** Textures per level (`LOD_TEXTURES`): resized and WebP-encoded, or kept as they came (the default here). */
  lodTextures?: LodTextureFormat;
  /**
   * How the levels of a model of many parts are batched into few primitives with feature ids (batch-parts.ts,
   * its defaults unless set); `false` writes a node per part however many there are.
   */
  batchParts?: Partial<BatchPartsOptions> | false;
  /** Most bytes LOD 1 and 2 may keep as a share of LOD 0's; a bigger level is not kept (`reduced: false`). */
  levelByteShares?: readonly [number, number];
  /** Most triangles a model may have; a bigger one fails naming the limit (`CONVERSION_MAX_TRIANGLES`). */
  maxTriangles?: number;
  /**
   * Makes a 3D Tiles tileset too, after the levels of detail, when the model has more than `aboveTriangles`
   * triangles (`TILES_ABOVE_TRIANGLES`; 0: every model): each file goes to `onFile` as soon as it is made, by its
   * path relative to the tileset. Without it, no tileset.
   */
  tiles?: { aboveTriangles: number; onFile: (path: string, bytes: Uint8Array) => Promise<void> };
  /**
   * Told before each stage how long it may run without reporting progress (a synchronous WebAssembly import,
   * a simplification of a big mesh), from the size of the input; a watchdog allows that much silence.
   */
  onBusy?: (milliseconds: number) => void;
  /**
   * A full garbage collection, asked for once the parts are listed when the heap holds more than
   * `collectAboveHeapBytes`: the service's conversion threads pass V8's. Without it V8 runs none before LOD 0 is
   * written, on top of the listing's garbage.
   */
  collectGarbage?: () => void;
  /** Heap in use past which `collectGarbage` is asked for ({@link COLLECT_ABOVE_HEAP_BYTES} unless set). */
  collectAboveHeapBytes?: number;
}

/** Silence allowed per megabyte of input while importing, and per million triangles in later stages. */
const BUSY_MS_PER_MEGABYTE = 2_000;
const BUSY_MS_PER_MILLION_TRIANGLES = 10_000;
/**
 * Silence allowed per thousand nodes in the stages after import: copying a whole document for a level and writing
 * its JSON happen inside glTF-Transform, linear in the nodes and with no way to report from inside (3.4 s of
 * processor time at 20,000 parts; 100,000 parts went past the default 15 s and were taken for wedged).
 */
const BUSY_MS_PER_THOUSAND_NODES = 500;

/** The silence the stages after import may keep, from the model's triangles and nodes. */
export function busyAfterImportMs(triangles: number, nodes: number): number {
  return (triangles / 1e6) * BUSY_MS_PER_MILLION_TRIANGLES + (nodes / 1000) * BUSY_MS_PER_THOUSAND_NODES;
}

/**
 * Heap in use past which the garbage left when the parts are listed is collected before LOD 0 is written. Listing
 * an IFC's 100,000 elements leaves 270 MiB of it, and V8's next collection came only after LOD 0's copy was made, at
 * the conversion's peak. Asked for there, a collection takes 0.4 s (0.8 s for 100,000 boxes, whose graph is larger).
 */
const COLLECT_ABOVE_HEAP_BYTES = 256 * 1024 * 1024;

/** Share of the LOD stage that writing LOD 0 stands for. */
const LOD0_SHARE = 0.1;

/** Longest a stage goes unheard while its steps report progress within one percent. */
const HEARTBEAT_MS = 1_000;

/** Where each stage starts and ends on the 0–100 progress scale. */
const STAGE_SPANS: Record<ConversionStage, [number, number]> = {
  import: [0, 20],
  'clean-up': [20, 35],
  parts: [35, 40],
  lods: [40, 95],
  tiles: [95, 99],
  write: [99, 100],
};

/**
 * Converts one model file into three binary glTF levels of detail plus its parts and statistics:
 * import → clean-up → extract parts → stats → LODs, writing each level as soon as it exists; then, for a model
 * above the tiling threshold, a 3D Tiles tileset built from LOD 0's triangles.
 */
export async function convertModel(options: ConvertModelOptions): Promise<ConversionResult> {
  const logger = options.logger ?? new Logger(Logger.Verbosity.WARN);
  const logStage = createStageLog(logger, NAME);
  let lastPercent = -1;
  let lastReport = 0;
  const progress = (stage: ConversionStage) => (fraction: number) => {
    const [start, end] = STAGE_SPANS[stage];
    const percent = Math.round(start + (end - start) * Math.min(1, Math.max(0, fraction)));
    const now = performance.now();
    // A step that reports slower than a percent moves is still heard from every second.
    if (percent > lastPercent || (percent === lastPercent && now - lastReport >= HEARTBEAT_MS)) {
      lastPercent = percent;
      lastReport = now;
      options.onProgress?.(percent, stage);
    }
  };

  // The document and everything tied to its graph go out of reach when the levels are written: the tiles are made
  // from the soup alone, and a graph of 100,000 parts held through them took 300 MiB more (see BENCHMARKS.md).
  const converted = await convertLevels(options, { logger, logStage, progress });
  let tiled: { tileset: TilesetOutput; cutGlb: Uint8Array } | null = null;
  if (converted.tiling && options.tiles) {
    options.onBusy?.(converted.busyMs);
    const source = { ...converted.tiling, io: converted.io, textureCache: converted.textureCache };
    tiled = await writeTileset(source, options.tiles.onFile, { logger, onProgress: progress('tiles') });
    logStage(`${tiled.tileset.tile_count} tiles written`);
  }
  progress('write')(1);

  const { lods, parts, stats, frame } = converted;
  return {
    lods,
    tileset: tiled?.tileset ?? null,
    tilesetCutGlb: tiled?.cutGlb ?? null,
    parts,
    triangle_count: stats.triangle_count,
    vertex_count: stats.vertex_count,
    bounds: stats.bounds,
    source_unit: frame.unit,
    source_up_axis: frame.upAxis,
  };
}

/** What {@link convertLevels} hands on: nothing in it reaches the document's graph. */
interface ConvertedLevels {
  lods: LodOutput[];
  parts: PartInfo[];
  stats: DocumentStats;
  frame: { unit: string; upAxis: string };
  /** The tiler's soup, tree and coarse leaves, for a model above the tiling threshold. */
  tiling?: { soup: TriangleSoup; tree: SplitNode; coarse?: CoarseLeaves };
  io: PlatformIO;
  textureCache: TextureLadderCache;
  /** The silence the stages after import may keep. */
  busyMs: number;
}

/** How {@link convertLevels} reports: the conversion's logger, its stage log and its progress by stage. */
interface LevelsReporting {
  logger: ILogger;
  logStage: (stage: string) => void;
  progress: (stage: ConversionStage) => (fraction: number) => void;
}

/** import → clean-up → extract parts → stats → LODs, writing each level as soon as it exists; and the tiling plan. */
async function convertLevels(
  options: ConvertModelOptions,
  { logger, logStage, progress }: LevelsReporting,
): Promise<ConvertedLevels> {
  const importer = importerFor(options.source.format);
  if (!importer) throw new ConversionError(`Unsupported model format: ${options.source.format}`);
  progress('import')(0);
  const { size } = await stat(options.source.file);
  options.onBusy?.((size / 1e6) * BUSY_MS_PER_MEGABYTE);
  const imported = await importer.read(options.source, {
    logger,
    onProgress: progress('import'),
    maxTriangles: options.maxTriangles,
  });
  const document = imported.document.setLogger(logger);
  const frame = applyDeclaredFrame(document, imported, options.source);
  logStage('imported');
  const importedTriangles = imported.sourceTriangleCount ?? computeStats(document).triangle_count;
  checkTriangleLimit(importedTriangles, options.maxTriangles);
  const nodeCount = document.getRoot().listNodes().length;
  const busy = (): void => options.onBusy?.(busyAfterImportMs(importedTriangles, nodeCount));

  busy();
  await cleanUp(document, { weld: !imported.welded }, { logger, onProgress: progress('clean-up') });
  // After clean-up, so the closed-surface check sees triangle lists.
  await markTwoSided(document, { simplifier: MeshoptSimplifier }, { logger });
  logStage('cleaned up');
  const parts = extractParts(
    document,
    {
      modelId: options.modelId,
      previousParts: options.previousParts,
      newGroupIdPrefix: options.newGroupIdPrefix,
    },
    { logger, onProgress: progress('parts') },
  );
  if (parts.length === 0) throw new ConversionError('The model contains no meshes');
  const stats = computeStats(document);
  if (imported.sourceTriangleCount !== undefined && imported.sourceTriangleCount > stats.triangle_count) {
    logger.warn(
      `${NAME}: source reports ${imported.sourceTriangleCount} triangles, ${stats.triangle_count} remain`,
    );
  }
  logStage('parts listed');
  const collectAbove = options.collectAboveHeapBytes ?? COLLECT_ABOVE_HEAP_BYTES;
  if (options.collectGarbage && process.memoryUsage().heapUsed > collectAbove) {
    options.collectGarbage();
    logStage('garbage collected');
  }

  const io = await createNodeIO();
  busy();
  // Writing LOD 0 is the first tenth of the LOD stage, making the other levels the rest.
  const lodProgress = progress('lods');
  let lodShare = 0;
  const heartbeat = () => lodProgress(lodShare);
  const textureCache: TextureLadderCache = new Map();
  const levelOptions = (level: 0 | 1 | 2) => ({
    level,
    compression: options.compressLods ?? 'none',
    textures: options.lodTextures ?? 'source',
    last: level === 2,
    cache: textureCache,
    batch: options.batchParts,
    onStep: heartbeat,
  });
  const minTriangles = options.lods?.minTriangles ?? MAKE_LODS_DEFAULTS.minTriangles;
  // Emptied when LOD 1 takes it, so the copy lives no longer than that.
  const kept: KeptCopy = {};
  const lods: LodOutput[] = [
    {
      level: 0,
      glb: await writeFirstLevel(io, document, levelOptions(0), { minTriangles, kept }, logger),
      triangle_count: stats.triangle_count,
      error: 0,
      reduced: false,
    },
  ];
  lodShare = LOD0_SHARE;
  lodProgress(lodShare);
  logStage('LOD 0 written');
  // Taken from LOD 0 before the levels are simplified in the document itself: ~30 bytes a triangle. The levels are
  // then simplified leaf by leaf of its tree, so the tiler can start each leaf's hand-up from LOD 2's.
  const plan =
    options.tiles && stats.triangle_count > options.tiles.aboveTriangles
      ? planTiling(document, MAKE_TILES_DEFAULTS, { logger })
      : undefined;
  let coarse: CoarseLeaves | undefined;
  /** The last level written, before it was judged against the levels before it. */
  let written: LodOutput | undefined;
  for await (const lod of makeLods(
    document,
    // LOD 0 is written by now, so the levels are made in the document itself rather than a copy.
    { simplifier: MeshoptSimplifier, consumeSource: true, pieces: plan?.pieces, ...options.lods },
    {
      logger,
      onProgress: (fraction) => {
        lodShare = LOD0_SHARE + (1 - LOD0_SHARE) * fraction;
        lodProgress(lodShare);
      },
    },
  )) {
    logStage(`LOD ${lod.level} made`);
    if (plan && lod.level === 2) coarse = coarseLeaves(plan, lod.piecesInLod0());
    const source = !lod.removed ? kept.copy : undefined;
    kept.copy = undefined;
    const previous = { written, triangles: written?.triangle_count ?? stats.triangle_count };
    written = await writtenLevel(io, { ...lod, source }, previous, levelOptions(lod.level), logger);
    const triangles = written.triangle_count;
    const level = keepIfSmaller(written, lods, options.levelByteShares);
    lods.push(level);
    if (!level.reduced)
      logger.info(`${NAME}: LOD ${lod.level} does not shrink enough; the level before it stands in`);
    lodProgress(lodShare);
    logStage(`LOD ${lod.level} written`);
    logger.debug(
      `${NAME}: LOD ${lod.level} has ${triangles} of ${stats.triangle_count} triangles, error ${lod.error}`,
    );
  }
  const tiling = plan && { soup: plan.soup, tree: plan.tree, coarse };
  const busyMs = busyAfterImportMs(importedTriangles, nodeCount);
  return { lods, parts, stats, frame, tiling, io, textureCache, busyMs };
}

/**
 * Applies the unit and up axis the uploader declared, for what the file itself leaves unknown: the scene's
 * top-level nodes are scaled to metres and turned to +Y up. Returns the unit and axis the source is now known by.
 */
function applyDeclaredFrame(
  document: Document,
  imported: ImportResult,
  source: ImportSource,
): { unit: string; upAxis: string } {
  const unit = imported.sourceUnit === 'unknown' && source.unit ? source.unit : undefined;
  const up = imported.sourceUpAxis === 'unknown' && source.up ? source.up : undefined;
  toMetresYUp(document, unit ? LENGTH_UNITS[unit] : 1, up === 'z' ? '+Z' : 'unknown');
  return {
    unit: unit ?? imported.sourceUnit,
    upAxis: up ? `+${up.toUpperCase()}` : imported.sourceUpAxis,
  };
}
