import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Logger, type Document } from '@gltf-transform/core';
import type { BufferGeometry, Group, Mesh, MeshPhysicalMaterial } from 'three';
import yauzl from 'yauzl';
import type { BoundMaterial } from '../../src/exports/bound-material.ts';
import { cleanUp } from '../../src/pipeline/clean-up.ts';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { createNodeIO } from '../../src/pipeline/create-io.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { importerFor } from '../../src/pipeline/importers.ts';
import { importAssimp } from '../../src/pipeline/import-assimp.ts';
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

/** One mesh three.js built from a USDZ: the prim holding it (the part), its colour (linear) and whether it has a map. */
export interface ThreeMesh {
  part: string;
  colour: [number, number, number];
  opacity: number;
  textured: boolean;
}

/**
 * Loads a USDZ with three.js's USDZLoader, as a web page would, and lists its meshes and triangles. Node has no DOM,
 * so a stand-in image element that loads at once lets the loader's texture promises settle.
 */
export async function loadWithThree(bytes: Uint8Array): Promise<{ triangles: number; meshes: ThreeMesh[] }> {
  const { USDZLoader } = await import('three/examples/jsm/loaders/USDZLoader.js');
  const globals = globalThis as { document?: unknown };
  globals.document ??= {
    createElementNS: () => {
      const listeners: Record<string, (event: unknown) => void> = {};
      return {
        addEventListener: (name: string, listener: (event: unknown) => void) =>
          void (listeners[name] = listener),
        removeEventListener: () => {},
        set src(_url: string) {
          setTimeout(() => listeners.load?.({}));
        },
      };
    },
  };
  const warn = console.warn;
  // The loader announces that USDZLoader is now an alias of USDLoader; that line is not a finding.
  console.warn = () => {};
  try {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const group = await new Promise<Group>((resolve, reject) =>
      new USDZLoader().parse(buffer, '', resolve, reject),
    );
    let triangles = 0;
    const meshes: ThreeMesh[] = [];
    group.traverse((object) => {
      const mesh = object as Mesh<BufferGeometry, MeshPhysicalMaterial>;
      if (!mesh.isMesh) return;
      const geometry = mesh.geometry;
      triangles += (geometry.index ? geometry.index.count : geometry.attributes.position.count) / 3;
      meshes.push({
        part: mesh.parent?.name ?? '',
        colour: mesh.material.color.toArray() as [number, number, number],
        opacity: mesh.material.opacity,
        textured: mesh.material.map !== null && mesh.material.map !== undefined,
      });
    });
    return { triangles, meshes };
  } finally {
    console.warn = warn;
  }
}
