import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Logger, type Document } from '@gltf-transform/core';
import type { BufferGeometry, Group, Mesh, MeshPhysicalMaterial } from 'three';
import yauzl from 'yauzl';
import type { BoundMaterial } from '../../src/writers/bound-material.ts';
import { cleanUp } from '../../src/pipeline/clean-up.ts';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import { importAssimp } from '../../src/pipeline/import/assimp/import-assimp.ts';
import type { ModelFormat, PartInfo } from '../../src/pipeline/types.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';

const quiet = { logger: new Logger(Logger.Verbosity.ERROR) };

/** The sample models, read-only. */
export const SAMPLES_DIR = SAMPLE_MODELS;

/** What Vitrine's pipeline makes of a file: the cleaned document (its LOD 0), its parts and triangle count. */
export interface PipelineRead {
  document: Document;
  parts: PartInfo[];
  triangles: number;
}

/**
 * Reads a model file the way a conversion does up to LOD 0 (importer, clean-up, parts). `3mf` is read by the same
 * assimp importer the catalog uses for OBJ, FBX and the rest; the catalog does not take 3MF uploads.
 */
export async function pipelineRead(file: string, format: ModelFormat | '3mf'): Promise<PipelineRead> {
  const importer = format === '3mf' ? importAssimp : importerFor(format);
  if (!importer) throw new Error(`no importer for ${format}`);
  const { document } = await importer.read(
    { file, dir: path.dirname(file), format: format as ModelFormat },
    quiet,
  );
  await cleanUp(document, {}, quiet);
  const parts = extractParts(document, { modelId: 'sample' }, quiet);
  return { document, parts, triangles: computeStats(document).triangle_count };
}

/** The LOD 0 GLB the pipeline writes for a sample, with its parts. */
export async function convertedSample(relative: string): Promise<PipelineRead & { glb: Uint8Array }> {
  const file = path.join(SAMPLES_DIR, relative);
  const format = path.extname(file).slice(1).toLowerCase() as ModelFormat;
  const read = await pipelineRead(file, format);
  return { ...read, glb: await (await createNodeIO()).writeBinary(read.document) };
}

/** Writes an export to a temporary folder (unzipping OBJ's zip) and reads it back through the pipeline. */
export async function reimport(
  bytes: Uint8Array,
  format: 'glb' | 'stl' | 'obj' | '3mf',
): Promise<PipelineRead> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-export-'));
  try {
    let file: string;
    if (format === 'obj') {
      for (const [name, data] of await unzip(bytes)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), data);
      }
      file = path.join(
        dir,
        fs.readdirSync(dir).find((name) => name.endsWith('.obj'))!,
      );
    } else {
      file = path.join(dir, `export.${format}`);
      fs.writeFileSync(file, bytes);
    }
    return await pipelineRead(file, format);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A zip entry as stored: name, compression method, where its data starts, and its bytes. */
export interface ZipEntryInfo {
  name: string;
  compressionMethod: number;
  dataOffset: number;
  data: Buffer;
}

/** Every entry of a zip in directory order, with the offset of its data in the archive. */
export async function zipEntries(bytes: Uint8Array): Promise<ZipEntryInfo[]> {
  const buffer = Buffer.from(bytes);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (error, opened) =>
      error ? reject(error) : resolve(opened!),
    ),
  );
  const entries: ZipEntryInfo[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      // The local header: 30 fixed bytes, then the name and the extra field, then the data.
      const header = entry.relativeOffsetOfLocalHeader;
      const nameLength = buffer.readUInt16LE(header + 26);
      const extraLength = buffer.readUInt16LE(header + 28);
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream!.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream!.on('end', () => {
          entries.push({
            name: entry.fileName,
            compressionMethod: entry.compressionMethod,
            dataOffset: header + 30 + nameLength + extraLength,
            data: Buffer.concat(chunks),
          });
          zip.readEntry();
        });
        stream!.on('error', reject);
      });
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

async function unzip(bytes: Uint8Array): Promise<[string, Buffer][]> {
  return (await zipEntries(bytes)).map((entry) => [entry.name, entry.data]);
}

/** A material record as the service would bind it, with the fields an export reads. */
export function boundMaterial(id: number, rgb: [number, number, number], alpha = 255): BoundMaterial {
  return {
    id,
    name: `Bound ${id}`,
    diffuse_r: rgb[0],
    diffuse_g: rgb[1],
    diffuse_b: rgb[2],
    alpha,
    specular_r: 0,
    specular_g: 0,
    specular_b: 0,
    metallic: 0.25,
    roughness: 0.6,
    reflectance: 0.5,
  };
}

/** Texture slots of a three.js material that an export fills. */
export const THREE_MAP_SLOTS = ['map', 'normalMap', 'roughnessMap', 'metalnessMap'] as const;

/** One mesh three.js built from a USDZ: the prim holding it (the part), its colour (linear) and its maps. */
export interface ThreeMesh {
  part: string;
  colour: [number, number, number];
  opacity: number;
  textured: boolean;
  /** The URL each filled texture slot's image was loaded from. */
  maps: Partial<Record<(typeof THREE_MAP_SLOTS)[number], string>>;
  /** three.js's material, for checks of its other fields. */
  material: MeshPhysicalMaterial;
}

/**
 * Node has no DOM: a stand-in image element that "loads" at once and remembers its URL lets three.js's texture
 * loaders settle and tells which file each texture came from.
 */
function installImageStandIn(): void {
  const globals = globalThis as { document?: unknown };
  globals.document ??= {
    createElementNS: () => {
      const listeners: Record<string, (this: unknown, event: unknown) => void> = {};
      let source = '';
      const element = {
        addEventListener: (name: string, listener: (event: unknown) => void) =>
          void (listeners[name] = listener),
        removeEventListener: () => {},
        get src() {
          return source;
        },
        set src(url: string) {
          source = url;
          // Loaders read the image from `this` of the load event, as a browser calls it.
          setTimeout(() => listeners.load?.call(element, {}));
        },
      };
      return element;
    },
  };
}

function describeMesh(mesh: Mesh<BufferGeometry, MeshPhysicalMaterial>): ThreeMesh {
  const material = mesh.material;
  const maps: ThreeMesh['maps'] = {};
  for (const slot of THREE_MAP_SLOTS) {
    const texture = material[slot];
    if (texture) maps[slot] = String((texture.image as { src?: string } | null)?.src ?? '');
  }
  return {
    part: mesh.parent?.name ?? '',
    colour: material.color.toArray() as [number, number, number],
    opacity: material.opacity,
    textured: material.map !== null && material.map !== undefined,
    maps,
    material,
  };
}

/** Loads a USDZ with three.js's USDZLoader, as a web page would, and lists its meshes and triangles. */
export async function loadWithThree(bytes: Uint8Array): Promise<{ triangles: number; meshes: ThreeMesh[] }> {
  const { USDZLoader } = await import('three/examples/jsm/loaders/USDZLoader.js');
  installImageStandIn();
  const warn = console.warn;
  // The loader announces that USDZLoader is now an alias of USDLoader; that line is not a finding.
  console.warn = () => {};
  try {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const group = await new Promise<Group>((resolve, reject) =>
      new USDZLoader().parse(buffer, '', resolve, reject),
    );
    // Textures settle a tick after the model.
    await new Promise((resolve) => setTimeout(resolve, 10));
    let triangles = 0;
    const meshes: ThreeMesh[] = [];
    group.traverse((object) => {
      const mesh = object as Mesh<BufferGeometry, MeshPhysicalMaterial>;
      if (!mesh.isMesh) return;
      const geometry = mesh.geometry;
      triangles += (geometry.index ? geometry.index.count : geometry.attributes.position.count) / 3;
      meshes.push(describeMesh(mesh));
    });
    return { triangles, meshes };
  } finally {
    console.warn = warn;
  }
}

/** What three.js's OBJLoader with MTLLoader makes of an OBJ export's zip, with the MTL statements it read. */
export interface ThreeObj {
  meshes: ThreeMesh[];
  /** MTLLoader's parsed statements per material, keys in lower case (`map_kd`, `norm`, `map_pr`…). */
  statements: Record<string, Record<string, unknown>>;
  /** The zip's files by path. */
  files: Map<string, Buffer>;
}

/** Loads an OBJ export (zip) with three.js's OBJLoader and MTLLoader, textures named by their path in the zip. */
export async function loadObjWithThree(zip: Uint8Array): Promise<ThreeObj> {
  const { OBJLoader } = await import('three/examples/jsm/loaders/OBJLoader.js');
  const { MTLLoader } = await import('three/examples/jsm/loaders/MTLLoader.js');
  installImageStandIn();
  const files = new Map(await unzip(zip));
  const name = (suffix: string) => [...files.keys()].find((file) => file.endsWith(suffix))!;
  const creator = new MTLLoader().parse(files.get(name('.mtl'))!.toString('utf8'), '');
  creator.preload();
  const group = new OBJLoader().setMaterials(creator).parse(files.get(name('.obj'))!.toString('utf8'));
  await new Promise((resolve) => setTimeout(resolve, 10));
  const meshes: ThreeMesh[] = [];
  group.traverse((object) => {
    const mesh = object as Mesh<BufferGeometry, MeshPhysicalMaterial>;
    if (mesh.isMesh) meshes.push(describeMesh(mesh));
  });
  return { meshes, statements: creator.materialsInfo as ThreeObj['statements'], files };
}
