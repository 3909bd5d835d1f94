import { open, readFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Document, Primitive } from '@gltf-transform/core';
import type { Material } from '@gltf-transform/core';
import { embedWebImages, indexFolder, resolveReference } from '../assimp/import-assimp-textures.ts';
import type { FolderIndex, SharpFactory } from '../assimp/import-assimp-textures.ts';
import { repairNormals } from '../import-normals.ts';
import { SharedIndexLists } from '../shared-index-lists.ts';
import { LineTooLongError, readLineChunks } from './line-chunks.ts';
import { srgbToLinear } from '../mesh-document.ts';
import { parseMtl } from './mtl-library.ts';
import type { MtlMaterial } from './mtl-library.ts';
import { nameParts } from '../../name-parts.ts';
import type { CornerArrays } from './obj-corners.ts';
import { createObjMaterials } from './obj-materials.ts';
import { ObjParser, ObjSyntaxError } from './obj-parser.ts';
import type { ObjModel, ObjPart } from './obj-parser.ts';
import { PROPERTIES_EXTRAS_KEY } from '../../part-properties.ts';
import { endsMidStatement } from './obj-truncation.ts';
import { RepeatedPartMeshes, sharingStep } from './repeated-part-meshes.ts';
import type { PartPrimitive } from './repeated-part-meshes.ts';
import { ConversionError } from '../../types.ts';
import type { ImportResult, ImportSource, Importer, StepContext } from '../../types.ts';

/** Step name used in logs. */
export const NAME = 'import-obj';

/** Options of {@link createObjImporter}. */
export interface ImportObjOptions {
  /** Bytes read per chunk; each chunk is one progress report. */
  chunkBytes: number;
  /** Longest line accepted; a longer one means the file is not text (and reading on would not be bounded). */
  maxLineBytes: number;
  /** Loads sharp, used only when a texture must be converted to PNG. */
  loadSharp: () => Promise<SharpFactory>;
}

/** Defaults of {@link ImportObjOptions}. */
export const IMPORT_OBJ_DEFAULTS: ImportObjOptions = {
  chunkBytes: 16 << 20,
  maxLineBytes: 64 << 20,
  loadSharp: async () => (await import('sharp')).default,
};

/** Share of the import's progress spent reading the file; the rest builds the parts. */
const READ_SHARE = 0.9;

const fail = (reason: string) => new ConversionError(`Could not read the OBJ file: ${reason}`);

/**
 * An importer for Wavefront OBJ (+ MTL) in JavaScript: the file streams through in chunks of whole lines and
 * is parsed from the bytes, so memory holds the file's vertex lists and each part's triangles, never the text.
 * `o`/`g` become parts (nodes) under a root named after the file, `usemtl` materials their primitives.
 */
export function createObjImporter(overrides: Partial<ImportObjOptions> = {}): Importer {
  const options = { ...IMPORT_OBJ_DEFAULTS, ...overrides };
  return { name: NAME, formats: ['obj'], read: (source, context) => readObj(source, context, options) };
}

/** The default OBJ importer. */
export const importObj: Importer = createObjImporter();

async function readObj(
  source: ImportSource,
  context: StepContext,
  options: ImportObjOptions,
): Promise<ImportResult> {
  const { logger } = context;
  const model = await parseFile(source.file, context, options);
  if (model.skippedLinesAndPoints > 0) {
    logger.warn(
      `${NAME}: ${model.skippedLinesAndPoints} line and point statements (\`l\`, \`p\`, faces of under three ` +
        `corners) are not converted`,
    );
  }
  if (model.ignored.size > 0) {
    const list = [...model.ignored].map(([keyword, count]) => `${keyword} (${count})`).join(', ');
    logger.warn(`${NAME}: statements ignored: ${list}`);
  }
  if (model.triangles === 0 && model.vertexCount === 0) throw fail('no geometry found');

  const folder = await indexFolder(source.dir);
  const library = await readMaterialLibraries(model.materialLibraries, folder, context);
  const fileName = path.basename(source.file);
  const baseName = fileName.replace(/\.[^.]+$/, '');
  const document = new Document();
  const buffer = document.createBuffer();
  const root = document.createNode(fileName);
  document.getRoot().setDefaultScene(document.createScene(baseName).addChild(root));
  const used = new Set(model.parts.flatMap((part) => [...part.primitives.keys()]));
  const materials = await createObjMaterials(document, used, library, folder, logger, NAME);

  const accessor = (
    type: 'VEC2' | 'VEC3' | 'VEC4' | 'SCALAR',
    array: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>,
  ) => document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const indexLists = new SharedIndexLists((indices) => accessor('SCALAR', indices));
  const addPrimitive = (arrays: CornerArrays | PointArrays, material: Material | undefined) => {
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', arrays.positions))
      .setMode(arrays.indices ? Primitive.Mode.TRIANGLES : Primitive.Mode.POINTS);
    if ('normals' in arrays && arrays.normals)
      primitive.setAttribute('NORMAL', accessor('VEC3', arrays.normals));
    const uvs = 'uvs' in arrays ? arrays.uvs : undefined;
    if (uvs) primitive.setAttribute('TEXCOORD_0', accessor('VEC2', uvs));
    else if (material && hasTextures(material)) {
      // A textured material on faces without `vt` (a `usemtl` that carries over): glTF needs coordinates for it.
      const count = arrays.positions.length / 3;
      primitive.setAttribute('TEXCOORD_0', accessor('VEC2', new Float32Array(count * 2)));
    }
    if (arrays.colors) primitive.setAttribute('COLOR_0', accessor('VEC4', linearColors(arrays.colors)));
    if (arrays.indices) primitive.setIndices(indexLists.accessorFor(arrays.indices));
    if (material) primitive.setMaterial(material);
    return primitive;
  };

  if (model.triangles === 0) {
    // A file of vertices only is a point cloud (a scan), as assimp read it.
    const mesh = document.createMesh('').addPrimitive(addPrimitive(pointArrays(model), undefined));
    root.addChild(document.createNode('').setMesh(mesh));
  } else {
    let built = 0;
    const repeats = new RepeatedPartMeshes(sharingStep(model.data.positions));
    for (const part of model.parts) {
      if (part.primitives.size === 0) continue;
      const primitives: PartPrimitive[] = [];
      for (const [material, corners] of part.primitives) {
        built += corners.triangles.count;
        primitives.push({ material, arrays: corners.take(model.data) });
      }
      const node = document.createNode(part.name).setExtras(objProperties(part));
      const build = () => {
        const mesh = document.createMesh(part.name);
        for (const { material, arrays } of primitives)
          mesh.addPrimitive(addPrimitive(arrays, materials.get(material)));
        return mesh;
      };
      // A part without a name takes its mesh's (name-parts.ts), so it never shares another part's mesh.
      root.addChild(node.setMesh(part.name === '' ? build() : repeats.meshFor(node, primitives, build)));
      context.onProgress?.(READ_SHARE + (1 - READ_SHARE) * (built / model.triangles));
    }
    if (repeats.shared > 0)
      logger.debug(`${NAME}: ${repeats.shared} parts repeat another moved and share its mesh`);
  }
  await embedWebImages(document, options.loadSharp, logger, NAME);
  const repaired = repairNormals(document);
  if (repaired > 0) logger.warn(`${NAME}: ${repaired} normals were not unit length and were repaired`);
  // Unnamed parts (faces before any `o`/`g`) and placeholder names take the file's name.
  nameParts(document, baseName);
  logger.debug(
    `${NAME}: ${model.triangles} triangles, ${model.vertexCount} vertices, ${root.listChildren().length} parts`,
  );
  context.onProgress?.(1);
  return {
    document,
    sourceTriangleCount: model.triangles,
    sourceUnit: 'unknown',
    sourceUpAxis: 'unknown',
    welded: true,
  };
}

/** Streams the file through the parser, turning its syntax errors into messages that name the line. */
async function parseFile(file: string, context: StepContext, options: ImportObjOptions): Promise<ObjModel> {
  let handle: FileHandle;
  let size: number;
  try {
    handle = await open(file);
    size = (await handle.stat()).size;
  } catch {
    throw fail('the file cannot be opened');
  }
  try {
    if (size === 0) throw fail('the file is empty');
    const parser = new ObjParser(context.maxTriangles);
    for await (const chunk of readLineChunks(handle, size, options)) {
      const { bytes, end, last } = chunk;
      // OBJ has no end marker: a last line cut mid-statement is all that shows a cut-off upload.
      if (last && end > 0 && bytes[end - 1] !== 0x0a && endsMidStatement(bytes.subarray(0, end), 'obj')) {
        throw fail('the file is truncated (its last line is cut off)');
      }
      parser.parse(bytes, end, chunk.fileOffset);
      context.onProgress?.(((chunk.fileOffset + end) / size) * READ_SHARE);
    }
    return parser.finish();
  } catch (error) {
    if (error instanceof ObjSyntaxError) {
      const line = await lineAt(handle, error.fileOffset);
      throw fail(`the file is damaged (line ${line.toLocaleString('en-US')}: ${error.reason})`);
    }
    if (error instanceof LineTooLongError) {
      throw fail(`the file is not OBJ text (a line longer than ${options.maxLineBytes >> 20} MB)`);
    }
    throw error;
  } finally {
    await handle.close();
  }
}

/** The 1-based line number of a file offset, counted only when an error needs it. */
async function lineAt(handle: FileHandle, offset: number): Promise<number> {
  const chunk = Buffer.allocUnsafe(1 << 20);
  let line = 1;
  for (let at = 0; at < offset;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, offset - at), at);
    if (bytesRead === 0) break;
    for (let i = chunk.indexOf(0x0a); i >= 0 && i < bytesRead; i = chunk.indexOf(0x0a, i + 1)) line++;
    at += bytesRead;
  }
  return line;
}

/** Materials of every `mtllib` the file names, found in the upload's folder; a missing library is a warning. */
async function readMaterialLibraries(
  names: string[],
  folder: FolderIndex,
  context: StepContext,
): Promise<Map<string, MtlMaterial>> {
  const library = new Map<string, MtlMaterial>();
  for (const statement of names) {
    // One name with spaces, or several names: the whole statement is tried first.
    const whole = resolveReference(statement, folder);
    for (const reference of whole ? [statement] : statement.split(/\s+/)) {
      const file = whole ?? resolveReference(reference, folder);
      if (!file) {
        context.logger.warn(`${NAME}: material library "${reference}" is not among the uploaded files`);
        continue;
      }
      for (const material of parseMtl(await readFile(file, 'utf8'))) {
        if (!library.has(material.name)) library.set(material.name, material);
      }
    }
  }
  return library;
}

/** Whether a material samples any texture. */
function hasTextures(material: Material): boolean {
  return Boolean(
    material.getBaseColorTexture() ?? material.getEmissiveTexture() ?? material.getNormalTexture(),
  );
}

/** The vertices of a file without faces, for a point cloud. */
interface PointArrays {
  positions: Float32Array<ArrayBuffer>;
  colors?: Float32Array<ArrayBuffer>;
  indices?: undefined;
}

function pointArrays(model: ObjModel): PointArrays {
  const count = model.vertexCount;
  return {
    positions: model.data.positions.slice(0, count * 3),
    colors: model.data.colors?.slice(0, count * 3),
  };
}

/** sRGB r, g, b (as OBJ writers store colours) to glTF's linear RGBA. */
function linearColors(colors: Float32Array): Float32Array<ArrayBuffer> {
  const count = colors.length / 3;
  const linear = new Float32Array(count * 4);
  for (let i = 0; i < count; i++) {
    linear[i * 4] = srgbToLinear(clamp01(colors[i * 3]));
    linear[i * 4 + 1] = srgbToLinear(clamp01(colors[i * 3 + 1]));
    linear[i * 4 + 2] = srgbToLinear(clamp01(colors[i * 3 + 2]));
    linear[i * 4 + 3] = 1;
  }
  return linear;
}

function clamp01(value: number): number {
  return value < 0 ? 0 : value > 1 ? 1 : value;
}

/** A part's `OBJ` set: the object or group name the file gave it and the materials its faces use. */
function objProperties(part: ObjPart): Record<string, unknown> {
  const set: Record<string, string> = {};
  if (part.name !== '') set[part.kind === 'group' ? 'Group' : 'Object'] = part.name;
  const materials = [...part.primitives.keys()].filter((name) => name !== '');
  if (materials.length > 0) set.Materials = materials.join(', ');
  return Object.keys(set).length > 0 ? { [PROPERTIES_EXTRAS_KEY]: { OBJ: set } } : {};
}
