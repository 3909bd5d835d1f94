// The levels' files as a conversion writes them: LOD 0, with the batched copy it may keep for LOD 1, then each later
// level, or the level before it again where that would be the same bytes.
import type { Document, ILogger, PlatformIO } from '@gltf-transform/core';
import { computeStats } from '../compute-stats.ts';
import type { LodOutput } from '../types.ts';
import { writesAsLevelBefore } from './keep-smaller-levels.ts';
import type { LodDocument } from './make-lods.ts';
import { hasSimplifiableMeshes } from './simplifiable-meshes.ts';
import { levelSource, writeLevelFrom } from './write-level.ts';
import type { WriteLevelOptions } from './write-level.ts';

/** How many times fewer nodes than the document a batched copy must hold to be kept from LOD 0 for LOD 1. */
const KEPT_COPY_NODE_SHARE = 10;

/**
 * Writes LOD 0, and keeps in `lod1.kept` the batched copy it was written from when LOD 1 will be that document
 * again, only quantized: a model of parts each too small to simplify, whose copy batching took the part nodes out of
 * (two seconds of batching 100,000 parts again). An IFC's elements are listed on their storeys rather than kept as
 * nodes (batch-parts.ts), so its copy is kept too. A copy that still keeps a node per part (parts holding other
 * nodes) would cost LOD 0 a copy of them all to compress and be held through the levels: 1.5 s and 60 MiB more at
 * 100,000 elements, when IFC elements were kept so. Nothing else holds the copy, so one not kept goes as soon as
 * LOD 0 is written.
 */
export async function writeFirstLevel(
  io: PlatformIO,
  document: Document,
  options: WriteLevelOptions,
  lod1: { minTriangles: number; kept: KeptCopy },
  logger: ILogger,
): Promise<Uint8Array<ArrayBuffer>> {
  const source = levelSource(document, options, { logger });
  const fewNodesLeft =
    source.getRoot().listNodes().length * KEPT_COPY_NODE_SHARE <= document.getRoot().listNodes().length;
  const keep = source !== document && fewNodesLeft && !hasSimplifiableMeshes(document, lod1.minTriangles);
  const glb = await writeLevelFrom(io, source, document, { ...options, keepSource: keep }, { logger });
  if (keep) lod1.kept.copy = source;
  return glb;
}

/** Where LOD 0's batched copy waits for LOD 1 (see {@link writeFirstLevel}). */
export interface KeptCopy {
  copy?: Document;
}

/**
 * A level as written, before it is judged against the levels before it: its own file (from `source`, LOD 0's
 * batched copy, when given), or for LOD 2 that removed nothing from LOD 1, the level written before it (LOD 1)
 * again, since its file would be LOD 1's byte for byte.
 */
export async function writtenLevel(
  io: PlatformIO,
  lod: LodDocument & { source?: Document },
  previous: { written: LodOutput | undefined; triangles: number },
  options: WriteLevelOptions,
  logger: ILogger,
): Promise<LodOutput> {
  const before = previous.written;
  if (before && writesAsLevelBefore(lod, options.textures))
    return { ...before, level: lod.level, error: lod.error };
  return {
    level: lod.level,
    // LOD 2 is simplified from LOD 1's document, so only the last level may be compressed in place.
    glb: await writeLevelFrom(
      io,
      lod.source ?? levelSource(lod.document, options, { logger }),
      lod.document,
      options,
      { logger },
    ),
    // A level that removed nothing has the level before's triangles: 100,000 parts are not counted again.
    triangle_count: lod.removed ? computeStats(lod.document).triangle_count : previous.triangles,
    error: lod.error,
    reduced: true,
  };
}
