import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { GLB_BUFFER } from '@gltf-transform/core';
import type { Document, GLTF } from '@gltf-transform/core';
import { createNodeIO } from '../../../gltf/create-io.ts';
import { repairNormals } from '../import-normals.ts';
import { endsMidStatement } from '../obj/obj-truncation.ts';
import { embedWebImages, indexFolder, readImageResources } from './import-assimp-textures.ts';
import type { SharpFactory } from './import-assimp-textures.ts';
import { readSourceFrame } from './import-assimp-units.ts';
import { toMetresYUp } from '../import-frame.ts';
import { linearizeVertexColors } from '../../linear-vertex-colors.ts';
import { colladaNames, nameParts } from '../../name-parts.ts';
import { PROPERTIES_EXTRAS_KEY, propertiesFromExtras } from '../../part-properties.ts';
import { KeptRuntime } from '../runtime-release.ts';
import { triangulateFbxPolygons } from './triangulate-fbx.ts';
import { triangulateObjPolygons } from '../obj/triangulate-obj.ts';
import { ConversionError } from '../../types.ts';
import type { ImportResult, ImportSource, Importer, ModelFormat, StepContext } from '../../types.ts';
import { loadSharp } from '../../../gltf/load-sharp.ts';

/** Step name used in logs and errors. */
export const NAME = 'import-assimp';

/** The part of the assimpjs WebAssembly module this importer calls. */
export interface AssimpModule {
  FileList: new () => AssimpFileList;
  ConvertFileList(files: AssimpFileList, format: 'glb2'): AssimpResult;
}

interface AssimpFileList {
  AddFile(name: string, content: Uint8Array): void;
  delete(): void;
}

interface AssimpResult {
  IsSuccess(): boolean;
  GetErrorCode(): number;
  FileCount(): number;
  GetFile(index: number): { GetContent(): Uint8Array };
  delete(): void;
}

/** Options of {@link createAssimpImporter}. */
export interface ImportAssimpOptions {
  /** Loads the assimpjs module; the default compiles it once per process. */
  loadAssimp: () => Promise<AssimpModule>;
  /** Loads sharp, used only when a texture must be converted to PNG. */
  loadSharp: () => Promise<SharpFactory>;
}

const assimpModule = new KeptRuntime<AssimpModule>(() => {
  const factory = createRequire(import.meta.url)('assimpjs') as (module: object) => Promise<AssimpModule>;
  // assimp's own console output is noise next to the errors reported here.
  return factory({ print: () => {}, printErr: () => {} });
});

/** Defaults of {@link ImportAssimpOptions}. */
export const IMPORT_ASSIMP_DEFAULTS: ImportAssimpOptions = {
  loadAssimp: () => assimpModule.get(),
  loadSharp,
};

const LABELS: Partial<Record<ModelFormat, string>> = {
  obj: 'OBJ',
  fbx: 'FBX',
  stl: 'STL',
  ply: 'PLY',
  dae: 'COLLADA',
  '3ds': '3DS',
};

/** Files assimp opens itself besides the model: only OBJ's material libraries (textures are resolved here). */
const COMPANIONS: Partial<Record<ModelFormat, RegExp>> = { obj: /\.mtl$/i };

/** Names assimp gives nodes that had none in the source. */
const PLACEHOLDER_NAME = /^(<[A-Z_]+>|)$/;

/**
 * An importer for OBJ (+ MTL), FBX, STL, PLY, COLLADA and 3DS through assimp compiled to
 * WebAssembly: assimp writes a GLB, which is read back with its external textures embedded and
 * then scaled to metres and turned to +Y up as the source declares.
 */
export function createAssimpImporter(overrides: Partial<ImportAssimpOptions> = {}): Importer {
  const options = { ...IMPORT_ASSIMP_DEFAULTS, ...overrides };
  return {
    name: NAME,
    formats: ['obj', 'fbx', 'stl', 'ply', 'dae', '3ds'],
    read: (source, context) => readWithAssimp(source, context, options),
  };
}

/** The default assimp importer. */
export const importAssimp: Importer = createAssimpImporter();

async function readWithAssimp(
  source: ImportSource,
  context: StepContext,
  options: ImportAssimpOptions,
): Promise<ImportResult> {
  const label = LABELS[source.format] ?? source.format.toUpperCase();
  const fail = (reason: string) => new ConversionError(`Could not read the ${label} file: ${reason}`);
  const { logger } = context;

  const bytes = await readFile(source.file).catch(() => {
    throw fail('the file cannot be opened');
  });
  if (bytes.byteLength === 0) throw fail('the file is empty');
  if (endsMidStatement(bytes, source.format)) throw fail('the file is truncated (its last line is cut off)');
  const frame = readSourceFrame(bytes, source.format);
  // assimp's own triangulation drops or overlaps the triangles of concave polygons, so they reach it cut already.
  const model = pretriangulate(bytes, source.format) ?? bytes;
  const folder = await indexFolder(source.dir);
  const companions = await readCompanions(source, folder.byPath);

  const assimp = await options.loadAssimp();
  const glb = convertToGlb(assimp, path.basename(source.file), model, companions, fail);
  // A big model leaves assimp's memory large; the GLB is copied out, so the runtime may go.
  await assimpModule.releaseAfter(assimp, model.byteLength);
  context.onProgress?.(0.6);

  let json: GLTF.IGLTF;
  try {
    json = JSON.parse(new TextDecoder().decode(glb.json)) as GLTF.IGLTF;
  } catch {
    throw fail('the importer produced an unreadable model');
  }
  // Counted before anything else touches the model: what assimp read is the reference.
  const sourceTriangleCount = countTriangles(json);
  // A scan without faces is a point cloud: assimp hands its vertices over as a POINTS primitive.
  if (sourceTriangleCount === 0 && !hasPoints(json)) throw fail('no geometry found');
  dropUnknownExtensions(json);

  let document: Document;
  try {
    const resources = await readImageResources(json, folder, logger, NAME);
    const io = await createNodeIO();
    document = await io.readJSON({
      json,
      resources: { ...resources, [GLB_BUFFER]: new Uint8Array(glb.bin) },
    });
  } catch (error) {
    throw fail(`the converted model is not readable (${message(error)})`);
  }
  await embedWebImages(document, options.loadSharp, logger, NAME);
  const repaired = repairNormals(document);
  if (repaired > 0) logger.warn(`${NAME}: ${repaired} normals were not unit length and were repaired`);
  // PLY colours are display values, which assimp passes on as they are.
  if (source.format === 'ply') linearizeVertexColors(document);
  const fileName = path.basename(source.file).replace(/\.[^.]+$/, '');
  nameUnnamedRoots(document, fileName);
  nameParts(document, fileName, source.format === 'dae' ? colladaNames(bytes) : undefined);
  if (source.format === 'fbx') labelFbxProperties(document);
  toMetresYUp(document, frame.metresPerUnit, frame.remainingUpAxis);

  logger.debug(
    `${NAME}: ${sourceTriangleCount} triangles, unit ${frame.unit}, up ${frame.upAxis}, ` +
      `${document.getRoot().listTextures().length} textures`,
  );
  context.onProgress?.(1);
  return { document, sourceTriangleCount, sourceUnit: frame.unit, sourceUpAxis: frame.upAxis };
}

/** The model with its polygons cut into triangles, for the formats whose polygons assimp would cut wrongly. */
function pretriangulate(bytes: Uint8Array, format: ModelFormat): Uint8Array | undefined {
  if (format === 'obj') return triangulateObjPolygons(bytes);
  if (format === 'fbx') return triangulateFbxPolygons(bytes);
  return undefined;
}

/** The companion files of the model's format found in its folder, by base name. */
async function readCompanions(
  source: ImportSource,
  folder: Map<string, string>,
): Promise<Map<string, Uint8Array>> {
  const pattern = COMPANIONS[source.format];
  const files = new Map<string, Uint8Array>();
  if (!pattern) return files;
  for (const absolute of folder.values()) {
    if (pattern.test(absolute) && absolute !== source.file) {
      files.set(path.basename(absolute), new Uint8Array(await readFile(absolute)));
    }
  }
  return files;
}

/** Runs assimp on the model and its companion files; WebAssembly traps become conversion errors. */
function convertToGlb(
  assimp: AssimpModule,
  name: string,
  bytes: Uint8Array,
  companions: Map<string, Uint8Array>,
  fail: (reason: string) => ConversionError,
): { json: Uint8Array; bin: Uint8Array } {
  let files: AssimpFileList | undefined;
  let result: AssimpResult | undefined;
  try {
    files = new assimp.FileList();
    // assimp tries every listed file as the model until one imports, so the model goes first and
    // no other model file is listed.
    files.AddFile(name, bytes);
    for (const [companion, content] of companions) files.AddFile(companion, content);
    result = assimp.ConvertFileList(files, 'glb2');
    if (!result.IsSuccess() || result.FileCount() === 0)
      throw fail('the file is damaged or not in this format');
    return splitGlb(result.GetFile(0).GetContent().slice(), fail);
  } catch (error) {
    if (error instanceof ConversionError) throw error;
    // A trap can leave the module's memory inconsistent, so the next import starts a fresh one.
    assimpModule.drop();
    throw fail(`the file is damaged (the importer stopped: ${message(error)})`);
  } finally {
    result?.delete();
    files?.delete();
  }
}

/** The JSON and BIN chunks of the GLB assimp wrote. */
function splitGlb(
  glb: Uint8Array,
  fail: (reason: string) => ConversionError,
): { json: Uint8Array; bin: Uint8Array } {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  if (glb.byteLength < 20 || view.getUint32(0, true) !== 0x46546c67)
    throw fail('the importer produced no model');
  const jsonLength = view.getUint32(12, true);
  const binStart = 20 + jsonLength;
  const binLength = binStart + 8 <= glb.byteLength ? view.getUint32(binStart, true) : 0;
  return {
    json: glb.subarray(20, binStart),
    bin: glb.subarray(binStart + 8, binStart + 8 + binLength),
  };
}

/** Triangles of each mesh counted once, as assimp wrote them (polygons reach it cut already, or it cuts them). */
function countTriangles(json: GLTF.IGLTF): number {
  let triangles = 0;
  for (const mesh of json.meshes ?? []) {
    for (const primitive of mesh.primitives) {
      const mode = primitive.mode ?? 4;
      const accessor = primitive.indices ?? primitive.attributes.POSITION;
      const count = accessor === undefined ? 0 : (json.accessors?.[accessor]?.count ?? 0);
      if (mode === 4) triangles += Math.floor(count / 3);
      else if (mode === 5 || mode === 6) triangles += Math.max(0, count - 2);
    }
  }
  return triangles;
}

/** Whether any mesh draws points. */
function hasPoints(json: GLTF.IGLTF): boolean {
  return (json.meshes ?? []).some((mesh) =>
    mesh.primitives.some((primitive) => primitive.mode === 0 && primitive.attributes.POSITION !== undefined),
  );
}

/** assimp marks polygons with `FB_ngon_encoding`, which only matters for exporting back to n-gons. */
function dropUnknownExtensions(json: GLTF.IGLTF): void {
  const unknown = 'FB_ngon_encoding';
  json.extensionsUsed = json.extensionsUsed?.filter((name) => name !== unknown);
  json.extensionsRequired = json.extensionsRequired?.filter((name) => name !== unknown);
  for (const mesh of json.meshes ?? []) {
    for (const primitive of mesh.primitives) {
      if (primitive.extensions) delete primitive.extensions[unknown];
    }
  }
}

/** Gives top-level nodes that assimp left unnamed (`<STL_BINARY>`, PLY's bare mesh) the file's name. */
function nameUnnamedRoots(document: Document, fileName: string): void {
  for (const scene of document.getRoot().listScenes()) {
    for (const node of scene.listChildren()) {
      if (PLACEHOLDER_NAME.test(node.getName())) node.setName(fileName);
    }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * assimp hands an FBX node's properties (its Properties70, user properties included) on as glTF `extras`; they
 * become the part's `FBX` set, where other glTF extras would be called `Extras`.
 */
function labelFbxProperties(document: Document): void {
  for (const node of document.getRoot().listNodes()) {
    const { Extras: fbx, ...rest } = propertiesFromExtras(node.getExtras());
    if (!fbx && Object.keys(rest).length === 0) continue;
    const properties = fbx ? { FBX: fbx, ...rest } : rest;
    node.setExtras({ ...node.getExtras(), [PROPERTIES_EXTRAS_KEY]: properties });
  }
}
