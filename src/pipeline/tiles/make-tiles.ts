import type { PlatformIO } from '@gltf-transform/core';
import { MeshoptEncoder } from 'meshoptimizer';
import type { MeshoptSimplifier } from 'meshoptimizer';
import { MAKE_LODS_DEFAULTS } from '../lods/make-lods.ts';
import type { AttributeWeights } from '../lods/simplifier-attributes.ts';
import sharp from 'sharp';
import { handUpSource, simplifyTile, simplifyTileTo } from './simplify-tile.ts';
import type { SimplifiedTile } from './simplify-tile.ts';
import { listLeaves, splitTriangles } from './split-tree.ts';
import type { SplitNode } from './split-tree.ts';
import { tileDocument } from './tile-document.ts';
import { createTileTextures } from './tile-textures.ts';
import type { TileTexturesOptions } from './tile-textures.ts';
import { coarseLeafGeometry } from './tiling-plan.ts';
import type { CoarseLeaves } from './tiling-plan.ts';
import {
  boxDiagonal,
  createVertexSlots,
  leafGeometry,
  mergeGeometries,
  positionsBox,
  tileVertexData,
  unionBoxes,
} from './tile-geometry.ts';
import type { TileBox, TileGeometry, TileVertexData } from './tile-geometry.ts';
import { boxVolume, tilesetJson } from './tileset-json.ts';
import type { TileJson, TilesetJson } from './tileset-json.ts';
import { quantizationError, reorderLeaf, tileGlb } from './write-tile.ts';
import type { TriangleSoup } from './triangle-soup.ts';
import type { StepContext } from '../types.ts';

/** Step name used in logs. */
export const NAME = 'make-tiles';

/** Where the tileset's own file lies among its files. */
export const TILESET_FILE = 'tileset.json';

/** Options of {@link makeTiles}. */
export interface MakeTilesOptions {
  /** meshoptimizer's simplifier, awaited `ready` before use. */
  simplifier: typeof MeshoptSimplifier;
  /** The writer of tile GLBs (with the meshopt encoder registered). */
  io: PlatformIO;
  /** Most triangles of a leaf; an inner tile aims at its children's average, about as many. */
  maxLeafTriangles: number;
  /** Binary cuts between a tile and its children: 3 gives up to eight children, as an octree. */
  cutsPerLevel: number;
  /** Weight of normals, UVs and colours in the simplifier's error, as for the levels of detail. */
  attributeWeights: AttributeWeights;
  /**
   * The conversion's texture encodings, so a rung the levels encoded is reused by the tiles; encodings of its own
   * when left out.
   */
  textures?: Omit<TileTexturesOptions, 'sharp'>;
  /**
   * How many times its share of its parent a tile is simplified to on its own, borders locked, before the parent
   * merges it (0: handed up whole; the parent then simplifies what is still over its target, with only its own
   * borders locked). One tile's simplification works within the processor's caches where eight merged do not:
   * at 1, about 17 % less processor time for the tiling of 2 M triangles than handing tiles up whole.
   */
  handUpShare: number;
  /**
   * Receives each file as soon as it is made, by its path relative to the tileset (`tiles/<id>.glb`, then
   * `tileset.json` last): the tiles are written away one by one rather than held.
   */
  onFile: (path: string, bytes: Uint8Array) => Promise<void>;
  /**
   * Most times an inner tile's `geometricError` may be its children's largest (when that is above 0): a tile
   * keeps more triangles than its share rather than stray further, so a viewer never draws a tile much coarser than
   * the level below it promised (the 3D Tiles convention is a small factor a level; 8 is what a surface at an
   * eighth of the triangles strays at most).
   */
  maxErrorGrowth: number;
  /** The tree to build, split already (its leaves at most `maxLeafTriangles`); split here when left out. */
  tree?: SplitNode;
  /**
   * The leaves of `tree` simplified on their own already, borders kept (by the levels of detail, leaf by leaf): a
   * covered leaf hands up its coarse triangles, simplified further where still over its share, rather than its
   * full ones simplified again.
   */
  coarseLeaves?: CoarseLeaves;
}

/** Defaults for {@link MakeTilesOptions} (the simplifier, writer and file sink must be given). */
export const MAKE_TILES_DEFAULTS: Omit<MakeTilesOptions, 'simplifier' | 'io' | 'onFile'> = {
  maxLeafTriangles: 65_536,
  cutsPerLevel: 3,
  attributeWeights: MAKE_LODS_DEFAULTS.attributeWeights,
  handUpShare: 1,
  maxErrorGrowth: 8,
};

/**
 * Most times its own `geometricError` a tile strays when simplified to hand its parent its share: with the tile's
 * own error, the parent's simplification and its quantization, the parent then stays within `maxErrorGrowth` of
 * its children's error.
 */
const HAND_UP_ERROR_FACTOR = 3;

/**
 * Most times its share of triangles a tile (or what it hands up) keeps to stay within `maxErrorGrowth` of its
 * children; beyond it the tile is simplified to its share whatever the error, so no tile grows without bound.
 */
const MAX_TILE_GROWTH = 4;

/** What {@link makeTiles} wrote. */
export interface TilesetSummary {
  tileset: TilesetJson;
  /** Tile files written (besides `tileset.json`). */
  tileCount: number;
  /** Triangles of the leaves together: the soup's. */
  leafTriangles: number;
  /** Bytes of every file written, `tileset.json` included. */
  bytes: number;
}

/** The file of tile `id` (`0` the root, `<parent>-<index>` a child), relative to the tileset. */
function tileFile(id: string): string {
  return `tiles/${id}.glb`;
}

/** How many levels under the root the tile written to `file` lies (0: the root); undefined for another file. */
export function tileDepth(file: string): number | undefined {
  const id = /^tiles\/(0(?:-\d+)*)\.glb$/.exec(file)?.[1];
  return id === undefined ? undefined : id.split('-').length - 1;
}

/** A finished tile: its entry in the tileset, and (for its parent to merge) its geometry. */
interface BuiltTile {
  json: TileJson;
  box: TileBox;
  /** Levels above the leaves: 0 for a leaf. */
  height: number;
  /** Triangles of the tile as written. */
  triangles: number;
  /** What it hands its parent: its geometry, simplified further on its own when it has siblings. */
  geometry: TileGeometry;
  /** How far `geometry` strays from the tile as written, in metres. */
  handedError: number;
  /**
   * A leaf's hand-up again, straying at most `maxError`: a leaf hands up its share whatever it costs, which its
   * parent undoes where a sibling's error sets a bound (its source is held until the parent is built).
   */
  handUpWithin?: (maxError: number) => SimplifiedTile;
}

/** A leaf beside inner tiles hands up within the bound they set, as they do; the hand-up is settled after. */
function boundLeafHandUps(children: BuiltTile[]): void {
  const childBound = HAND_UP_ERROR_FACTOR * Math.max(...children.map((child) => child.json.geometricError));
  for (const child of children) {
    if (childBound > 0 && child.handUpWithin && child.handedError > childBound) {
      const handed = child.handUpWithin(childBound);
      child.geometry = handed.geometry;
      child.handedError = handed.error;
    }
    child.handUpWithin = undefined;
  }
}

/**
 * Simplifies an inner tile's merged children to about one child's size, its own error kept within
 * `maxErrorGrowth` of its children's; past a bound of triangles size wins over that rule (`onStrayed` says so).
 * Gives the tile's geometricError too.
 */
function simplifyInnerTile(
  soup: TriangleSoup,
  merged: TileGeometry,
  children: BuiltTile[],
  options: Omit<Parameters<typeof simplifyTile>[2], 'ratio'> & {
    maxErrorGrowth: number;
    modelDiagonal: number;
    quantization: number;
    onStrayed: () => void;
  },
): { simplified: SimplifiedTile; geometricError: number; average: number } {
  const { maxErrorGrowth, modelDiagonal, quantization, onStrayed, ...simplifying } = options;
  const childError = Math.max(...children.map((child) => child.json.geometricError));
  const handedError = Math.max(...children.map((child) => child.handedError));
  // What this tile's own simplification may add and keep within `maxErrorGrowth` of its children's error.
  const allowed =
    childError > 0
      ? Math.max(0, maxErrorGrowth * childError - childError - handedError - quantization)
      : modelDiagonal;
  // As many triangles as a child has on average: tiles keep about the same size at every depth.
  const average = children.reduce((sum, child) => sum + child.triangles, 0) / children.length;
  const ratio = Math.min(1, average / (merged.indices.length / 3));
  let simplified = simplifyTile(soup, merged, {
    ...simplifying,
    maxError: Math.min(modelDiagonal, allowed),
    ratio,
  });
  if (simplified.geometry.indices.length / 3 > MAX_TILE_GROWTH * average) {
    // A model whose every simplification strays (coarse facets, no dense surface to thin) would otherwise grow
    // its tiles level by level up to the whole model at the root: past a bound, size wins over the error rule.
    onStrayed();
    simplified = simplifyTile(soup, merged, { ...simplifying, maxError: modelDiagonal, ratio });
  }
  const geometricError = Math.min(
    // Past the model's diagonal an error means nothing: anything within the model's box is that close.
    Math.max(modelDiagonal, childError),
    childError + handedError + simplified.error + quantization,
  );
  return { simplified, geometricError, average };
}

/**
 * How a written tile reaches its parent: simplified towards `handUpShare` of its share when it has siblings, its
 * error within a bound of its own; a leaf keeps the means to be handed up again within a sibling's bound.
 */
function createHandUp(
  soup: TriangleSoup,
  simplifying: Omit<Parameters<typeof simplifyTileTo>[3], 'vertexData'>,
  handUpShare: number,
  modelDiagonal: number,
) {
  return (
    json: TileJson,
    box: TileBox,
    height: number,
    geometry: TileGeometry,
    siblings: number,
    from: { vertexData?: TileVertexData; coarse?: SimplifiedTile } = {},
  ): BuiltTile => {
    const triangles = geometry.indices.length / 3;
    if (siblings < 2 || !(handUpShare > 0)) return { json, box, height, triangles, geometry, handedError: 0 };
    const share = Math.min(1, handUpShare / siblings) * triangles;
    const coarse = handUpSource(geometry, from.coarse, share);
    const within = (maxError: number) => {
      // A coarse version already further astray than allowed is no start: the tile itself is.
      const source = coarse.error <= maxError ? coarse : { geometry, error: 0 };
      const vertexData = source.geometry === geometry ? from.vertexData : undefined;
      return simplifyTileTo(soup, source, share, { ...simplifying, vertexData, maxError });
    };
    if (json.geometricError > 0) {
      let handed = within(HAND_UP_ERROR_FACTOR * json.geometricError);
      // As for a tile's own simplification: past a bound, size wins over the error rule.
      if (handed.geometry.indices.length / 3 > MAX_TILE_GROWTH * share) handed = within(modelDiagonal);
      return { json, box, height, triangles, geometry: handed.geometry, handedError: handed.error };
    }
    // A leaf (error 0) hands up its share whatever it costs, unless a sibling's error sets its parent a bound.
    const handed = within(modelDiagonal);
    return {
      json,
      box,
      height,
      triangles,
      geometry: handed.geometry,
      handedError: handed.error,
      handUpWithin: handed.error > 0 ? within : undefined,
    };
  };
}

/**
 * Builds a 3D Tiles 1.1 tileset of a model's triangles: a k-d tree split by area (up to eight children a tile),
 * leaves of full-resolution geometry of at most `maxLeafTriangles`, each inner tile its children (each first
 * simplified on its own towards its share, borders locked) merged and simplified to the size of one of them, with
 * its `geometricError` the distance it may stray from full resolution in metres (what it strayed from its children
 * plus their own error, plus quantization), refined by replacement. Tiles are built depth first, each written as
 * soon as it is made, so besides the soup only the tiles along one branch (their sibling's geometry) are held.
 */
export async function makeTiles(
  soup: TriangleSoup,
  options: Partial<MakeTilesOptions> & Pick<MakeTilesOptions, 'simplifier' | 'io' | 'onFile'>,
  context: StepContext,
): Promise<TilesetSummary> {
  const settings: MakeTilesOptions = { ...MAKE_TILES_DEFAULTS, ...options };
  await settings.simplifier.ready;
  await MeshoptEncoder.ready;
  const total = soup.indices.length / 3;
  if (total === 0) throw new Error(`${NAME}: the model has no triangles to tile`);
  const tree = settings.tree ?? splitTriangles(soup, settings);
  const leafIndex = new Map(listLeaves(tree).map((leaf, index) => [leaf, index]));
  const textures = createTileTextures(
    soup,
    { sharp, ...(settings.textures ?? { cache: new Map() }) },
    context,
  );
  const slots = createVertexSlots(soup);
  const modelDiagonal = boxDiagonal(positionsBox(soup.positions));
  // Every triangle is worked on once in its leaf, and then about once more in all the inner tiles together.
  let done = 0;
  context.onProgress?.(0);
  const summary = { tileCount: 0, leafTriangles: 0, bytes: 0 };
  const write = async (path: string, bytes: Uint8Array) => {
    await settings.onFile(path, bytes);
    summary.bytes += bytes.byteLength;
  };

  const simplifying = {
    simplifier: settings.simplifier,
    maxError: modelDiagonal,
    attributeWeights: settings.attributeWeights,
  };
  const handUp = createHandUp(soup, simplifying, settings.handUpShare, modelDiagonal);

  const build = async (node: SplitNode, id: string, siblings: number): Promise<BuiltTile> => {
    const uri = tileFile(id);
    if (node.children.length === 0) {
      // With one material a tile is one primitive: ordered for the codec here, once, rather than by the writer.
      const reordered = soup.materials.length === 1;
      const gathered = leafGeometry(soup, node.triangles, slots);
      const geometry = reordered ? reorderLeaf(gathered) : gathered;
      // Gathered once: for its box, its document and its hand-up simplification.
      const vertexData = tileVertexData(soup, geometry);
      const box = positionsBox(vertexData.positions);
      await write(
        uri,
        await tileGlb(
          settings.io,
          tileDocument(soup, geometry, await textures(0), context.logger, vertexData),
          { leaf: true, reordered },
          context,
        ),
      );
      summary.tileCount++;
      summary.leafTriangles += node.triangles.length;
      done += node.triangles.length;
      context.onProgress?.(Math.min(1, done / (2 * total)));
      const json = { boundingVolume: { box: boxVolume(box) }, geometricError: 0, content: { uri } };
      const coarse = coarseLeafGeometry(settings.coarseLeaves, leafIndex.get(node)!, slots);
      return handUp(json, box, 0, geometry, siblings, { vertexData, coarse });
    }
    const children: BuiltTile[] = [];
    for (const [index, child] of node.children.entries())
      children.push(await build(child, `${id}-${index}`, node.children.length));
    boundLeafHandUps(children);
    const merged = mergeGeometries(
      children.map((child) => child.geometry),
      slots,
    );
    const height = 1 + Math.max(...children.map((child) => child.height));
    // The children's geometry is let go before this tile's is written.
    for (const child of children)
      child.geometry = { vertices: new Uint32Array(0), indices: new Uint32Array(0) };
    const childBox = unionBoxes(children.map((child) => child.box));
    const quantization = quantizationError(childBox);
    // Quantizing may move a vertex out of its children's box by as much: the box grows to hold it.
    const box: TileBox = {
      min: [0, 1, 2].map((axis) => childBox.min[axis] - quantization) as TileBox['min'],
      max: [0, 1, 2].map((axis) => childBox.max[axis] + quantization) as TileBox['max'],
    };
    const { simplified, geometricError, average } = simplifyInnerTile(soup, merged, children, {
      ...simplifying,
      maxErrorGrowth: settings.maxErrorGrowth,
      modelDiagonal,
      quantization,
      onStrayed: () =>
        context.logger.debug(
          `${NAME}: ${id} strays more than ${settings.maxErrorGrowth}× its children to keep its size`,
        ),
    });
    await write(
      uri,
      await tileGlb(
        settings.io,
        tileDocument(soup, simplified.geometry, await textures(height), context.logger),
        { leaf: false },
        context,
      ),
    );
    summary.tileCount++;
    done += average;
    context.onProgress?.(Math.min(1, done / (2 * total)));
    const json: TileJson = {
      boundingVolume: { box: boxVolume(box) },
      geometricError,
      content: { uri },
      children: children.map((child) => child.json),
    };
    return handUp(json, box, height, simplified.geometry, siblings);
  };

  const root = await build(tree, '0', 1);
  const tileset = tilesetJson(root.json, modelDiagonal);
  await write(TILESET_FILE, new TextEncoder().encode(JSON.stringify(tileset)));
  context.onProgress?.(1);
  context.logger.debug(
    `${NAME}: ${summary.tileCount} tiles, ${summary.leafTriangles} leaf triangles, ${summary.bytes} bytes`,
  );
  return { tileset, ...summary };
}
