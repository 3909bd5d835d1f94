import { Primitive, PropertyType } from '@gltf-transform/core';
import type { Mesh, Node, mat4, Document } from '@gltf-transform/core';
import { cloneDocument, prune } from '@gltf-transform/functions';
import { dedupByHash } from '../dedup-by-hash.ts';
import type { MeshoptSimplifier, SimplifierFlags } from 'meshoptimizer';
import {
  emptyBox,
  listMeshNodes,
  meshTriangleCount,
  meshWorldBox,
  unionBox,
} from '../../gltf/measure-geometry.ts';
import { countIndexUsers, replaceIndices } from './replace-indices.ts';
import type { IndexUsers } from './replace-indices.ts';
import { floatColors, floatNormals, floatPositions, indexCount, uint32Indices } from './primitive-arrays.ts';
import { simplifierAttributes, weldKeys } from './simplifier-attributes.ts';
import type { AttributeWeights } from './simplifier-attributes.ts';
import { advancePieces, piecesInLod0, startPieces } from './pieced-lods.ts';
import type { PiecedState, PiecedTriangles, TrianglePieces } from './pieced-lods.ts';
import { simplifyInChunks, simplifyInPieces } from './simplify-in-chunks.ts';
import type { PiecedSimplification } from './simplify-in-chunks.ts';
import { simplifyWelded } from './simplify-welded.ts';
import type { SharedAttributes } from './simplify-welded.ts';
import { measureSurface } from './shading-deviation.ts';
import { hasSimplifiableMeshes } from './simplifiable-meshes.ts';
import { multiply } from '../../gltf/multiply-matrices.ts';
import type { StepContext } from '../types.ts';

/** Step name used in logs. */
export const NAME = 'make-lods';

/** Options of {@link makeLods}. */
export interface MakeLodsOptions {
  /** meshoptimizer's simplifier, awaited `ready` before use. */
  simplifier: typeof MeshoptSimplifier;
  /** Share of LOD 0's triangles (and points) aimed at by LOD 1 and LOD 2. */
  ratios: readonly [number, number];
  /**
   * Largest geometric error of LOD 1 and LOD 2 against LOD 0, relative to the whole model's bounding-box
   * diagonal: the simplifier stops there even short of its target, so a part keeps more triangles rather than
   * losing its shape.
   */
  maxError: readonly [number, number];
  /**
   * Largest share of a primitive's surface area LOD 1 and LOD 2 may lose or add: a bounded error can still
   * fold away a thin part (a leg, a fin) narrower than the bound, which this catches; the budget is then
   * quartered until it holds, then fewer triangles removed, or the primitive stays as it was.
   */
  maxAreaChange: readonly [number, number];
  /**
   * Weight of normals, UVs and colours in the simplifier's error besides positions: shading and texture placement
   * are kept, and attribute seams (hard edges, UV islands) are never crossed.
   */
  attributeWeights: AttributeWeights;
  /**
   * Largest share of a primitive's area LOD 1 and LOD 2 may shade wrongly (vertex normals more than 45° from their
   * face) beyond what LOD 0 does: a budget that folds a surface over or drags a normal across a hard edge is then
   * quartered, or fewer triangles removed, as for the area.
   */
  maxShadingChange: readonly [number, number];
  /** Keep open borders where they are, so parts that meet along an edge leave no gap. */
  lockBorder: boolean;
  /** Meshes with fewer triangles keep all of them: there is nothing worth removing. */
  minTriangles: number;
  /** Simplify the source document itself instead of a copy: saves memory once LOD 0 is written. */
  consumeSource: boolean;
  /**
   * Largest piece of one primitive simplified at once, in triangles: bigger primitives are simplified in
   * spatial pieces whose shared vertices stay put, which bounds the simplifier's memory and lets progress move.
   */
  chunkTriangles: number;
  /**
   * Pieces chosen by the caller for some triangle primitives, simplified in those instead of pieces of their own,
   * each piece's border kept (see {@link LodDocument.piecesInLod0}).
   */
  pieces?: ReadonlyMap<Primitive, TrianglePieces>;
}

/** Defaults for {@link MakeLodsOptions} (the simplifier must be given). */
export const MAKE_LODS_DEFAULTS: Omit<MakeLodsOptions, 'simplifier'> = {
  ratios: [0.5, 0.15],
  maxError: [0.002, 0.004],
  maxAreaChange: [0.02, 0.06],
  attributeWeights: { normal: 0.1, uv: 0.1, color: 0.1 },
  maxShadingChange: [0.015, 0.015],
  lockBorder: true,
  minTriangles: 64,
  consumeSource: false,
  chunkTriangles: 250_000,
};

/** One level of detail: the document as it stands at that level. */
export interface LodDocument {
  level: 1 | 2;
  document: Document;
  /** Largest geometric error of this level against LOD 0, relative to the model's bounding-box diagonal. */
  error: number;
  /**
   * Whether this level removed any triangle or point from the level before it; when not, its document is that
   * level's as it stood (a model of parts too small to simplify, each under `minTriangles`).
   */
  removed: boolean;
  /**
   * The primitives given `pieces` as they stand at this level, on LOD 0's vertices with their pieces (a primitive
   * simplified otherwise at some level, where its pieces could not be kept, is left out); read it before asking
   * for the next level.
   */
  piecesInLod0: () => Map<Primitive, PiecedTriangles>;
}

/** A primitive to simplify, with what it was at LOD 0. */
interface Work {
  primitive: Primitive;
  /** Triangles (or points) at LOD 0. */
  elements: number;
  /** Surface area at LOD 0, in the mesh's own units. */
  area: number;
  /** Model diagonal in the mesh's own units: error budgets are shares of it. */
  diagonal: number;
  /** Absolute error already spent by earlier levels, in the mesh's own units. */
  spent: number;
  /** Share of its area LOD 0 shades with normals more than 45° from their faces. */
  shading: number;
  /** Where its pieces stand, when it is simplified in pieces the caller chose and they could be kept so far. */
  pieced?: PiecedState;
}

/**
 * Yields LOD 1 and then LOD 2 of `document`, keeping every node, transform and `extras.group_id`. Triangle
 * primitives are simplified with an error bound measured against the whole model; point primitives are
 * thinned by spatial subsampling, keeping their colours. The levels cascade in one document (LOD 2 from
 * LOD 1, within the budget LOD 1 left), so write each level before asking for the next. That document is a
 * copy, or with `consumeSource` the source itself (no copy once LOD 0 is written).
 */
export async function* makeLods(
  document: Document,
  options: Partial<MakeLodsOptions> & Pick<MakeLodsOptions, 'simplifier'>,
  context: StepContext,
): AsyncGenerator<LodDocument> {
  const settings: MakeLodsOptions = { ...MAKE_LODS_DEFAULTS, ...options };
  await settings.simplifier.ready;
  const lod = settings.consumeSource ? document : cloneDocument(document);
  const work = collectWork(lod, settings);
  const total = work.reduce((sum, item) => sum + item.elements, 0) || 1;
  context.onProgress?.(0);

  const levels = [1, 2] as const;
  for (const level of levels) {
    let done = 0;
    let error = 0;
    let removed = false;
    // Nothing to simplify (every mesh too small): the index users of 100,000 parts are not counted for nothing.
    const users = work.length > 0 ? countIndexUsers(lod) : new Map();
    for (const item of work) {
      const before = indexCount(item.primitive);
      // A big primitive reports after each of its pieces; a retried one repeats where it stands.
      let within = 0;
      const onShare = (share: number) => {
        within = Math.max(within, share);
        context.onProgress?.((level - 1 + (done + item.elements * within) / total) / levels.length);
      };
      const spent =
        item.primitive.getMode() === Primitive.Mode.POINTS
          ? thinPoints(item, settings.ratios[level - 1], settings, users)
          : simplifyTriangles(item, level, settings, users, onShare);
      error = Math.max(error, spent / item.diagonal);
      removed ||= indexCount(item.primitive) !== before;
      done += item.elements;
      context.onProgress?.((level - 1 + done / total) / levels.length);
    }
    // A level that removed nothing leaves the document as LOD 0 was written from it, or as the last level left it.
    if (removed) await tidy(lod);
    context.onProgress?.(level / levels.length);
    yield {
      level,
      document: lod,
      error,
      removed,
      piecesInLod0: () =>
        piecesInLod0(new Map(work.map((item) => [item.primitive, item.pieced])), settings.pieces),
    };
  }
}

/** Primitives worth simplifying, each with its LOD 0 size and the model's diagonal in its own units. */
function collectWork(document: Document, settings: MakeLodsOptions): Work[] {
  // The boxes of 100,000 placed parts are not measured when none of them could be simplified.
  if (!hasSimplifiableMeshes(document, settings.minTriangles)) return [];
  // The whole model's box, and how much each mesh is scaled where it is placed (its largest placement).
  const box = emptyBox();
  const scales = new Map<Mesh, number>();
  for (const { node, mesh, world } of listMeshNodes(document)) {
    unionBox(box, meshWorldBox(mesh, world));
    scales.set(mesh, Math.max(scales.get(mesh) ?? 0, placementScale(node, world)));
  }
  const diagonal = Math.hypot(box.max[0] - box.min[0], box.max[1] - box.min[1], box.max[2] - box.min[2]);
  if (!(diagonal > 0)) return [];

  const work: Work[] = [];
  for (const [mesh, scale] of scales) {
    const triangles = meshTriangleCount(mesh) >= settings.minTriangles;
    for (const primitive of mesh.listPrimitives()) {
      const mode = primitive.getMode();
      const position = primitive.getAttribute('POSITION');
      if (!position || scale <= 0) continue;
      if (mode === Primitive.Mode.TRIANGLES && triangles) {
        const elements = indexCount(primitive) / 3;
        const positions = floatPositions(position);
        const indices = uint32Indices(primitive);
        const { area, deviatingShare: shading } = measureSurface(positions, floatNormals(primitive), indices);
        const pieces = settings.pieces?.get(primitive);
        const pieced = pieces && startPieces(pieces);
        work.push({ primitive, elements, area, diagonal: diagonal / scale, spent: 0, shading, pieced });
      } else if (mode === Primitive.Mode.POINTS && position.getCount() >= settings.minTriangles) {
        work.push({
          primitive,
          elements: indexCount(primitive),
          area: 0,
          diagonal: diagonal / scale,
          spent: 0,
          shading: 0,
        });
      }
    }
  }
  return work;
}

/**
 * How much a node's mesh is magnified where it is drawn: by its world matrix, or for a skinned mesh (whose
 * node transform glTF ignores) by its joints' world matrices times their inverse bind matrices.
 */
function placementScale(node: Node, world: mat4): number {
  const skin = node.getSkin();
  if (!skin) return matrixScale(world);
  const inverseBind = skin.getInverseBindMatrices();
  let scale = 0;
  skin.listJoints().forEach((joint, index) => {
    const bind = inverseBind ? (inverseBind.getElement(index, new Array<number>(16)) as mat4) : IDENTITY;
    scale = Math.max(scale, matrixScale(multiply(joint.getWorldMatrix(), bind)));
  });
  return scale;
}

/** The largest axis scale of an affine matrix. */
export function matrixScale(m: mat4): number {
  return Math.max(Math.hypot(m[0], m[1], m[2]), Math.hypot(m[4], m[5], m[6]), Math.hypot(m[8], m[9], m[10]));
}

const IDENTITY: mat4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/**
 * Simplifies one indexed triangle list towards its level's share of LOD 0 within the level's error budget
 * (less what earlier levels spent); returns the absolute error spent so far. Nothing goes past the budget:
 * a primitive the simplifier cannot take to its target keeps the triangles it needs.
 */
function simplifyTriangles(
  item: Work,
  level: 1 | 2,
  settings: MakeLodsOptions,
  users: IndexUsers,
  onShare: (share: number) => void,
): number {
  const { primitive } = item;
  const triangles = indexCount(primitive) / 3;
  const target = Math.max(3, Math.floor(item.elements * settings.ratios[level - 1]) * 3);
  if (triangles < 2 || triangles * 3 <= target) return item.spent;

  const positions = floatPositions(primitive.getAttribute('POSITION')!);
  const indices = uint32Indices(primitive);
  const normals = floatNormals(primitive);
  const { attributes, weights } = simplifierAttributes(primitive, settings.attributeWeights);
  // Faceted or split surfaces pin the simplifier at their copied corners: copies that differ in their normals
  // alone can be welded, the UV seams between them kept.
  const weldable = normals !== undefined && primitive.listTargets().length === 0;
  const flags: SimplifierFlags[] = settings.lockBorder ? ['LockBorder', 'ErrorAbsolute'] : ['ErrorAbsolute'];
  const budget = settings.maxError[level - 1] * item.diagonal - item.spent;
  if (!(budget > 0)) return item.spent;
  const maxChange = settings.maxAreaChange[level - 1];
  const maxShading = item.shading + settings.maxShadingChange[level - 1];
  // Copies that differ in their normals alone are welded only when the simplifier stalls: looked up once.
  let shared: SharedAttributes | undefined;
  // Tried in turn until a result keeps the area and the shading: the budget quartered (a thin part folded away
  // within a bounded error), then the full budget removing half and a quarter as many triangles (on a surface
  // whose normals are smoothed over its hard edges, each collapse near them shades a little more of it wrongly).
  const removable = (indices.length - target) / 3;
  const gentler = (share: number) => indices.length - Math.floor(removable * share) * 3;
  const trials: [number, number][] = [
    [budget, target],
    [budget / 4, target],
    [budget / 16, target],
    [budget, gentler(1 / 2)],
    [budget, gentler(1 / 4)],
  ];
  for (let trial = 0; trial < trials.length; trial++) {
    const [targetError, targetIndexCount] = trials[trial];
    const options = {
      targetIndexCount,
      targetError,
      flags,
      chunkTriangles: settings.chunkTriangles,
      onChunk: (done: number) => onShare(done / triangles),
    };
    const simplifying = {
      ...options,
      simplifier: settings.simplifier,
      attributes,
      attributeWeights: weights,
    };
    const { pieced } = item;
    let inPieces: PiecedSimplification | undefined;
    if (pieced)
      inPieces = simplifyInPieces(indices, positions, pieced.pieceOf, pieced.pieceCount, simplifying);
    let [best, error] = inPieces
      ? [inPieces.indices, inPieces.error]
      : simplifyInChunks(indices, positions, simplifying);
    if (weldable && best.length > targetIndexCount * 1.5) {
      shared ??= {
        ...weldKeys(primitive),
        ...simplifierAttributes(primitive, { ...settings.attributeWeights, normal: 0 }),
      };
      const welded = simplifyWelded(indices, positions, normals, settings.simplifier, options, shared);
      // Welded copies are not the caller's pieces: they are given up for the smaller result.
      if (welded[0].length < best.length) [best, error, inPieces] = [...welded, undefined];
    }
    if (best.length === 0 || best.length >= indices.length) {
      // Nothing goes at the full budget: nothing will at less. A smaller budget that removes nothing: go on to
      // the gentler targets.
      if (trial === 0) return item.spent;
      if (trial < 3) trial = 2;
      continue;
    }
    // Each step after the pieces takes seconds on tens of millions of triangles: report between them.
    onShare(1);
    const { area, deviatingShare } = measureSurface(positions, normals, best);
    onShare(1);
    if (item.area > 0 && Math.abs(area - item.area) > item.area * maxChange) continue;
    if (deviatingShare > maxShading) continue;
    replaceIndices(primitive, best, users, () => onShare(1));
    item.pieced = pieced && inPieces && advancePieces(pieced, inPieces, primitive);
    item.spent += error;
    return item.spent;
  }
  return item.spent;
}

/**
 * Keeps about `ratio` of a point primitive's LOD 0 points, spread evenly through its volume (and its colours,
 * when it has them); returns the spacing of the kept points as the error spent.
 */
function thinPoints(item: Work, ratio: number, settings: MakeLodsOptions, users: IndexUsers): number {
  const { primitive } = item;
  const position = primitive.getAttribute('POSITION')!;
  const target = Math.max(1, Math.floor(item.elements * ratio));
  if (position.getCount() <= target) return item.spent;
  const positions = floatPositions(position);
  const color = primitive.getAttribute('COLOR_0');
  const colors = color ? floatColors(color) : undefined;
  const kept = colors
    ? settings.simplifier.simplifyPoints(positions, 3, target, colors, 3, 1)
    : settings.simplifier.simplifyPoints(positions, 3, target);
  if (kept.length === 0 || kept.length >= position.getCount()) return item.spent;
  replaceIndices(primitive, kept, users);
  // Evenly spread points each stand for a cell of the box; half its side is how far a dropped point may be.
  const [min, max] = [position.getMin([0, 0, 0]), position.getMax([0, 0, 0])];
  const volume = Math.max(1e-30, (max[0] - min[0]) * (max[1] - min[1]) * (max[2] - min[2]));
  item.spent = Math.max(item.spent, Math.cbrt(volume / kept.length) / 2);
  return item.spent;
}

/** Gives new accessors the document's buffer (a GLB has exactly one) and drops the replaced ones. */
async function tidy(document: Document): Promise<void> {
  const root = document.getRoot();
  // glTF-Transform's compactPrimitive (morph targets, unindexed primitives) leaves its new accessors without a buffer.
  const buffer = root.listBuffers()[0] ?? document.createBuffer();
  for (const accessor of root.listAccessors()) if (!accessor.getBuffer()) accessor.setBuffer(buffer);
  await document.transform(
    prune({ keepAttributes: true, keepSolidTextures: true, keepExtras: true, keepLeaves: true }),
    // Meshes that were alike at LOD 0 (a spider's legs) shared their accessors, and simplify alike: share again.
    dedupByHash({ propertyTypes: [PropertyType.ACCESSOR] }),
  );
}
