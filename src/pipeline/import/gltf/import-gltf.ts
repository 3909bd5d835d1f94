import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Document, GLTF } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { createNodeIO } from '../../../gltf/create-io.ts';
import { gltfResourceUris, missingResourcesMessage } from './model-resources.ts';
import { ConversionError } from '../../types.ts';
import type { ImportResult, ImportSource, Importer, StepContext } from '../../types.ts';

/** Step name used in logs and errors. */
export const NAME = 'import-gltf';

/** Reads glTF 2.0 (`.glb`, or `.gltf` with its `.bin` and images beside it); glTF is already metres, +Y up. */
export const importGltf: Importer = {
  name: NAME,
  formats: ['glb', 'gltf'],
  async read(source: ImportSource, context: StepContext): Promise<ImportResult> {
    const size = await stat(source.file).then(
      (s) => s.size,
      () => {
        throw new ConversionError('The model file could not be read');
      },
    );
    if (size === 0) throw new ConversionError('The file is empty');

    if (source.format === 'glb' && (await readMagic(source.file)) !== 'glTF') {
      throw new ConversionError('Invalid GLB: the file does not start with the binary glTF header');
    }

    const io = await createNodeIO();
    const label = source.format === 'glb' ? 'Invalid GLB' : 'Invalid glTF';
    let document: Document;
    try {
      // readAsJSON resolves a .gltf's relative URIs against the file's own folder.
      const json = await io.readAsJSON(source.file);
      refuseUnreadable(json.json);
      checkBuffersHeld(json.json, json.resources, label);
      checkAccessors(json.json, label);
      document = await io.readJSON(json);
    } catch (error) {
      if (error instanceof ConversionError) throw error;
      if (source.format === 'gltf' && /ENOENT/.test(String(error))) {
        const missing = await missingFiles(source.file);
        if (missing.length > 0)
          throw new ConversionError(
            `${label}: ${missingResourcesMessage(path.basename(source.file), missing)}`,
          );
      }
      throw new ConversionError(`${label}: ${describe(error)}`);
    }
    context.onProgress?.(1);
    context.logger.debug(`${NAME}: read ${document.getRoot().listMeshes().length} meshes`);
    return { document, sourceUnit: 'm', sourceUpAxis: '+Y' };
  },
};

/** Required extensions whose data Vitrine cannot decode would silently lose geometry: refuse them by name. */
function refuseUnreadable(json: GLTF.IGLTF): void {
  const known = new Set(ALL_EXTENSIONS.map((extension) => extension.EXTENSION_NAME));
  for (const name of json.extensionsRequired ?? []) {
    if (name === 'KHR_draco_mesh_compression') {
      throw new ConversionError('Draco-compressed glTF (KHR_draco_mesh_compression) is not supported');
    }
    if (!known.has(name)) throw new ConversionError(`Unsupported required glTF extension: ${name}`);
  }
}

/** Bytes of one component of each accessor component type. */
const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
/** Components of each accessor type. */
const TYPE_COMPONENTS: Record<string, number> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
};
/** Most bytes an accessor without a buffer view (zeros, or sparse values over zeros) may make. */
const MAX_UNBACKED_ACCESSOR_BYTES = 256 * 1024 * 1024;

/** Key under which glTF-Transform keeps a GLB's binary chunk among the resources it read. */
const GLB_BINARY_CHUNK = '@glb.bin';

/**
 * Checks that every buffer holds the bytes it declares: a GLB whose buffer claims more than its binary chunk, or a
 * .bin shorter than declared, would otherwise be read as zeros or nothing and convert to an empty model.
 */
function checkBuffersHeld(json: GLTF.IGLTF, resources: Record<string, Uint8Array>, label: string): void {
  (json.buffers ?? []).forEach((buffer, index) => {
    // Only the first buffer without a uri is the GLB's binary chunk; a later one holds no bytes of its own (an
    // EXT_meshopt_compression fallback buffer, whose data the decoder makes from the compressed views).
    if (buffer.uri === undefined && index > 0) return;
    const data = buffer.uri === undefined ? resources[GLB_BINARY_CHUNK] : resources[buffer.uri];
    if (buffer.uri === undefined && data === undefined && buffer.byteLength > 0) {
      throw new ConversionError(
        `${label}: buffer ${index} declares ${buffer.byteLength} bytes, but the file has no binary chunk`,
      );
    }
    if (data !== undefined && buffer.byteLength > data.byteLength) {
      throw new ConversionError(
        `${label}: buffer ${index} declares ${buffer.byteLength} bytes, but the file holds ${data.byteLength}`,
      );
    }
  });
}

/**
 * Checks that every accessor fits its buffer view and every view its buffer before anything is read: a file
 * that declares 2^30 elements over a few bytes would otherwise ask for gigabytes, or read past its data.
 */
function checkAccessors(json: GLTF.IGLTF, label: string): void {
  const views = json.bufferViews ?? [];
  const buffers = json.buffers ?? [];
  views.forEach((view, index) => {
    const buffer = buffers[view.buffer];
    const end = (view.byteOffset ?? 0) + view.byteLength;
    if (!buffer || end > buffer.byteLength) {
      throw new ConversionError(
        `${label}: buffer view ${index} ends at byte ${end}, past its buffer of ${buffer?.byteLength ?? 0} bytes`,
      );
    }
  });
  (json.accessors ?? []).forEach((accessor, index) => {
    const elementBytes =
      (COMPONENT_BYTES[accessor.componentType] ?? 0) * (TYPE_COMPONENTS[accessor.type] ?? 0);
    if (elementBytes === 0 || !Number.isSafeInteger(accessor.count) || accessor.count < 0) {
      throw new ConversionError(`${label}: accessor ${index} has an unknown type or count`);
    }
    const described = `accessor ${index} declares ${accessor.count} ${accessor.type} elements`;
    if (accessor.bufferView === undefined) {
      if (accessor.count * elementBytes > MAX_UNBACKED_ACCESSOR_BYTES)
        throw new ConversionError(
          `${label}: ${described} without data (${accessor.count * elementBytes} bytes)`,
        );
      return;
    }
    const view = views[accessor.bufferView];
    if (!view) throw new ConversionError(`${label}: accessor ${index} names a missing buffer view`);
    const stride = view.byteStride ?? elementBytes;
    const needed =
      accessor.count === 0 ? 0 : (accessor.byteOffset ?? 0) + (accessor.count - 1) * stride + elementBytes;
    if (needed > view.byteLength) {
      throw new ConversionError(
        `${label}: ${described} (${needed} bytes), but its buffer view holds ${view.byteLength} bytes`,
      );
    }
  });
}

/** The first four bytes of a file as Latin-1 text. */
async function readMagic(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4), 0, 4, 0);
    return buffer.toString('latin1', 0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The resources a .gltf names that are not beside it, as it names them. */
async function missingFiles(file: string): Promise<string[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return [];
  }
  const dir = path.dirname(file);
  const missing: string[] = [];
  for (const uri of gltfResourceUris(json)) {
    const found = await stat(path.resolve(dir, uri)).then(
      (stats) => stats.isFile(),
      () => false,
    );
    if (!found) missing.push(uri);
  }
  return missing;
}

/** A short, user-facing description of a parse failure. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/ENOENT/.test(message)) {
    const missing = /open '([^']+)'/.exec(message)?.[1];
    return missing ? `missing resource ${missing.split(/[\\/]/).pop()}` : 'a referenced resource is missing';
  }
  if (/JSON/.test(message)) return `the JSON cannot be parsed (${message})`;
  if (/offset|bounds|Invalid typed array length|length/i.test(message))
    return `the file is truncated or corrupt (${message})`;
  return message;
}
