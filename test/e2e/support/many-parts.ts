// A model of 100,489 parts seeded straight into a data folder as a finished conversion would leave it: a GLB made in
// code (a square grid of parts, each one of 50 small meshes, written as their instances) stored as its LOD 0, and the model's
// row and parts' rows written through the catalog's repository. Converting such a file would take the pipeline
// longer than a browser test should wait; the viewer only reads what a conversion stores. The same grid can be made
// smaller and batched, its parts drawn by one primitive as a conversion's levels draw many parts.
import { randomUUID } from 'node:crypto';
import { Document, Logger } from '@gltf-transform/core';
import { createModelRepository } from '../../../src/catalog/repository.ts';
import { lodKey, modelPrefix } from '../../../src/catalog/lod-keys.ts';
import { createVersionRepository } from '../../../src/catalog/versions/repository.ts';
import { loadConfig } from '../../../src/config.ts';
import { createNodeIO } from '../../../src/gltf/create-io.ts';
import { batchParts } from '../../../src/pipeline/lods/batch-parts.ts';
import type { PartInfo } from '../../../src/pipeline/types.ts';
import { openServices } from '../../../src/services.ts';
import { boxArrays } from '../../helpers/box-arrays.ts';

/** Parts along each side of the grid: odd, so one part sits at the grid's centre, where the view looks. */
export const GRID_SIDE = 317;
/** Distinct meshes the parts instance. */
export const MESH_COUNT = 50;
/** Batching logs its counts at debug level only. */
const QUIET = new Logger(Logger.Verbosity.ERROR);
/** Height of every mesh; flat, so no neighbour stands between the camera and the centre part. */
const HEIGHT = 0.2;

/**
 * The part at grid row `row`, column `column`: its group id (`prefix` keeps two grids' ids, and so their bound
 * materials, apart), name and folder.
 */
export function gridPart(
  row: number,
  column: number,
  prefix = 'grid',
): { group_id: string; name: string; path: string } {
  return {
    group_id: `${prefix}-${row}-${column}`,
    name: `Part ${row}-${column}`,
    path: `Grid/Row ${row}`,
  };
}

/** The part at the centre of a grid of `side` parts a side: the bounds are centred on it, so the view looks at it. */
export function centrePart(side: number, prefix = 'grid'): { group_id: string; name: string; path: string } {
  return gridPart((side - 1) / 2, (side - 1) / 2, prefix);
}

/** The part at the grid's centre. */
export const CENTRE_PART = centrePart(GRID_SIDE);

/** Footprint of mesh `m` (x and z half-widths), all within a 0.6 m cell of the 1 m pitch. */
function footprint(m: number): [number, number] {
  return [0.15 + (m % 10) * 0.015, 0.3 - Math.floor(m / 10) * 0.03];
}

/** A box of mesh `m`'s footprint standing on y = 0: 24 vertices (flat normals) and 12 triangles. */
function box(m: number): ReturnType<typeof boxArrays> {
  const [halfX, halfZ] = footprint(m);
  const shape = boxArrays([halfX * 2, HEIGHT, halfZ * 2]);
  for (let at = 1; at < shape.positions.length; at += 3) shape.positions[at]! += HEIGHT / 2;
  return shape;
}

/** How a grid is made: its parts a side, and whether its parts are batched as a conversion's levels batch them. */
export interface GridOptions {
  side: number;
  /** Parts drawn by one primitive (`EXT_mesh_features` ids, see batch-parts.ts) instead of a node each. */
  batched: boolean;
  /** What its parts' group ids start with. */
  prefix: string;
}

/** The model of the suite: {@link GRID_SIDE} parts a side, each shared mesh's parts its instances. */
const GRID_DEFAULTS: GridOptions = { side: GRID_SIDE, batched: false, prefix: 'grid' };

/**
 * The GLB of the grid as a conversion's levels write it: a `Grid` node holding one node per row, its parts drawn as
 * the instances of a node per shared mesh (`EXT_mesh_gpu_instancing`, each instance's part by
 * `EXT_instance_features`); batched, one node drawing every part (the batching a conversion leaves to meshes shared
 * by a few nodes, forced on these).
 */
export async function manyPartsGlb({
  side,
  batched,
  prefix,
}: GridOptions = GRID_DEFAULTS): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene('Scene');
  const material = document
    .createMaterial('Grey')
    .setBaseColorFactor([0.7, 0.72, 0.75, 1])
    .setDoubleSided(true);
  const meshes = Array.from({ length: MESH_COUNT }, (_, m) => {
    const shape = box(m);
    const accessor = (type: 'VEC3' | 'SCALAR', array: Float32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>) =>
      document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', shape.positions))
      .setAttribute('NORMAL', accessor('VEC3', shape.normals))
      .setIndices(accessor('SCALAR', shape.indices))
      .setMaterial(material);
    return document.createMesh(`Mesh ${m}`).addPrimitive(primitive);
  });
  const grid = document.createNode('Grid');
  scene.addChild(grid);
  const half = (side - 1) / 2;
  for (let row = 0; row < side; row++) {
    const rowNode = document.createNode(`Row ${row}`);
    grid.addChild(rowNode);
    for (let column = 0; column < side; column++) {
      const part = gridPart(row, column, prefix);
      rowNode.addChild(
        document
          .createNode(part.name)
          .setMesh(meshes[meshOf(row, column, side)]!)
          .setTranslation([column - half, 0, row - half])
          .setExtras({ group_id: part.group_id }),
      );
    }
  }
  batchParts(document, batched ? { sharedAtLeast: Number.POSITIVE_INFINITY } : {}, { logger: QUIET });
  const io = await createNodeIO();
  return io.writeBinary(document);
}

/** The mesh a part instances; the centre part's is the widest, so a click at the view's centre finds it. */
function meshOf(row: number, column: number, side: number): number {
  const half = (side - 1) / 2;
  return row === half && column === half ? MESH_COUNT - 10 + 9 : (row * 7 + column * 3) % MESH_COUNT;
}

/** The parts' rows as a conversion records them, in the GLB's node order. */
function gridParts(side: number, prefix: string): PartInfo[] {
  const parts: PartInfo[] = [];
  const half = (side - 1) / 2;
  for (let row = 0; row < side; row++) {
    for (let column = 0; column < side; column++) {
      const m = meshOf(row, column, side);
      const [halfX, halfZ] = footprint(m);
      const [x, z] = [column - half, row - half];
      parts.push({
        ...gridPart(row, column, prefix),
        triangle_count: 12,
        vertex_count: 24,
        bounds: { min: [x - halfX, 0, z - halfZ], max: [x + halfX, HEIGHT, z + halfZ] },
        properties: {},
        fingerprint: { geometry: `mesh-${m}`, transform: `${x},0,${z}`, properties: '{}', material: 'grey' },
      });
    }
  }
  return parts;
}

/**
 * Writes the grid model into `dataDir` (migrating its database first), as a completed model named `name`, and
 * answers its id. Run before the server starts on that folder.
 */
export async function seedManyParts(
  dataDir: string,
  name: string,
  grid: GridOptions = GRID_DEFAULTS,
): Promise<string> {
  const { side } = grid;
  const config = loadConfig({ DATA_DIR: dataDir });
  const services = await openServices(config);
  try {
    const { db, dialect } = services.database;
    const models = createModelRepository({ db, dialect });
    const glb = await manyPartsGlb(grid);
    const id = randomUUID();
    const sourceKey = `${modelPrefix(id)}source/grid.glb`;
    await services.blobs.putBytes(sourceKey, glb);
    const lod0 = lodKey(id, 0, glb);
    await services.blobs.putBytes(lod0, glb);
    const row = await models.create({
      id,
      name,
      description: `${side * side} parts ${grid.batched ? 'batched' : 'instancing'} ${MESH_COUNT} meshes`,
      original_filename: 'grid.glb',
      format: 'glb',
      file_size: glb.byteLength,
      status: 'pending',
      progress: 0,
      source_key: sourceKey,
      source_entry: null,
      unit: null,
      up_axis: null,
      lods: '[]',
      tags: '[]',
      upload_id: null,
      idempotency_key: null,
      request_fingerprint: null,
    });
    await createVersionRepository(db).createFirst(row);
    const parts = gridParts(side, grid.prefix);
    const extent = (side - 1) / 2 + 0.3;
    await models.complete(id, {
      lods: [
        { level: 0, key: lod0, triangle_count: parts.length * 12, size: glb.byteLength, reduced: false },
      ],
      tileset_key: null,
      tilesetCutGlb: null,
      parts,
      triangle_count: parts.length * 12,
      vertex_count: parts.length * 24,
      bounds: { min: [-extent, 0, -extent], max: [extent, HEIGHT, extent] },
      source_unit: 'm',
      source_up_axis: 'y',
    });
    return id;
  } finally {
    await services.close();
  }
}
