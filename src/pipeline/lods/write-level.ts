import type { Document, PlatformIO } from '@gltf-transform/core';
import { MeshoptEncoder } from 'meshoptimizer';
import sharp from 'sharp';
import { hasManyParts } from './batch-parts.ts';
import type { BatchPartsOptions } from './batch-parts.ts';
import { batchedCopy } from './batched-copy.ts';
import { compressLod, dropCompression } from './compress-lod.ts';
import type { LodCompression } from './compress-lod.ts';
import { glbBytes } from '../../gltf/glb-bytes.ts';
import { TEXTURE_LADDER_SIZES, applyTextureLadder } from './texture-ladder.ts';
import type { LodTextureFormat, TextureLadderCache } from './texture-ladder.ts';
import type { StepContext } from '../types.ts';

/** Step name used in logs. */
export const NAME = 'write-level';

/** How often a level whose textures are being encoded reports that it is still working. */
const BEAT_MS = 1_000;

/** Options of {@link writeLevel}. */
export interface WriteLevelOptions {
  /** Which level this is: decides the texture size and whether vertex data is quantized (LOD 1 and 2 only). */
  level: 0 | 1 | 2;
  /** Geometry compression: `meshopt`, lossless on LOD 0 and quantized on LOD 1 and 2, or `none`. */
  compression: LodCompression;
  /** Textures resized per level and encoded as WebP, or kept as they came. */
  textures: LodTextureFormat;
  /** Whether nothing reads the document after this level, so it may be compressed in place instead of a copy. */
  last: boolean;
  /** Texture encodings shared between the levels of one conversion. */
  cache: TextureLadderCache;
  /**
   * Batches the level's parts into a few primitives with feature ids when it has many (batch-parts.ts); `false`
   * writes a node per part however many there are.
   */
  batch?: Partial<BatchPartsOptions> | false;
  /** Called between the steps of the write. */
  onStep?: () => void;
}

/**
 * Writes one level of detail as GLB bytes, the way it is served to viewers: textures on the level's rung of the
 * ladder, geometry meshopt-compressed. `document` is left as it was for the levels made from it afterwards,
 * unless this level is the `last`, which may be consumed.
 */
export async function writeLevel(
  io: PlatformIO,
  document: Document,
  options: WriteLevelOptions,
  context: StepContext,
): Promise<Uint8Array<ArrayBuffer>> {
  return writeLevelFrom(io, levelSource(document, options, context), document, options, context);
}

/**
 * The document a level of `document` is written from: a copy with its parts batched when it has many parts and
 * enough of them merge, else `document` itself.
 */
export function levelSource(
  document: Document,
  options: Pick<WriteLevelOptions, 'batch'>,
  context: StepContext,
): Document {
  if (options.batch === false || !hasManyParts(document, options.batch)) return document;
  return batchedCopy(document, options.batch ?? {}, context) ?? document;
}

/**
 * {@link writeLevel} from `source`, what {@link levelSource} gave for `document`. With `keepSource`, a batched
 * source is left as it was too, so a later level that draws `document` unchanged (LOD 1 of parts each too small to
 * simplify) is written from it without batching 100,000 parts again.
 */
export async function writeLevelFrom(
  io: PlatformIO,
  source: Document,
  document: Document,
  options: WriteLevelOptions & { keepSource?: boolean },
  context: StepContext,
): Promise<Uint8Array<ArrayBuffer>> {
  const { level, compression } = options;
  let target = source;
  if (compression === 'meshopt') {
    target = await compressLod(
      source,
      // LOD 0 is the download and the exact level: lossless. It is compressed as a copy too, because reordering
      // its vertices in place would hand the simplifier another order and so change LOD 1 and 2.
      {
        encoder: MeshoptEncoder,
        quantize: level > 0,
        consumeSource: !options.keepSource && (options.last || source !== document),
        onStep: options.onStep,
      },
      context,
    );
  }
  let restore = () => {};
  if (options.textures === 'webp') {
    // sharp encodes off this thread, seconds per large near-lossless map: say every second that work goes on.
    const beat = setInterval(() => options.onStep?.(), BEAT_MS);
    try {
      restore = await applyTextureLadder(
        target,
        { sharp, maxSize: TEXTURE_LADDER_SIZES[level], cache: options.cache },
        context,
      );
    } finally {
      clearInterval(beat);
    }
  }
  try {
    return await glbBytes(io, target, { onStep: options.onStep });
  } finally {
    restore();
    if (target === document) dropCompression(document);
  }
}
