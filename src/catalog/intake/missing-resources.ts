import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { resolveReference } from '../../pipeline/import/assimp/import-assimp-textures.ts';
import {
  gltfResourcePath,
  gltfResourceUris,
  indexNames,
  objLibraryStatements,
  resolveLibraryStatement,
} from '../../pipeline/import/gltf/model-resources.ts';
import { parseMtl } from '../../pipeline/import/obj/mtl-library.ts';
import type { ModelFormat } from '../../pipeline/types.ts';

/** One file of an upload: where its bytes are and the name (with folders) the client gave it. */
export interface UploadedName {
  path: string;
  relativeName: string;
}

/**
 * Largest .gltf or .mtl read to list what it names: parsing happens on the API's event loop (about 30 ms for
 * 4 MiB), and a .gltf larger than this mostly holds its data inline. Larger ones are left to the conversion.
 */
const MAX_TEXT_BYTES = 4 * 1024 * 1024;
/** How much of an OBJ is searched for `mtllib`: exporters write it first; later ones are left to the conversion. */
const OBJ_HEAD_BYTES = 1024 * 1024;

/**
 * The files a .gltf or .obj names that are not among the upload's files, as the model writes them; empty for
 * other formats and whenever the model cannot be read cheaply (the conversion then judges it). For a .gltf:
 * its buffers and images, matched exactly as the glTF reader opens them. For an .obj: its `mtllib` libraries and
 * the diffuse, emissive, normal, roughness and metalness maps those name, matched as the OBJ importer finds them (case and folders
 * aside).
 */
export async function missingResources(
  model: UploadedName,
  format: ModelFormat,
  files: readonly UploadedName[],
): Promise<string[]> {
  const dir = folderOf(model.relativeName);
  const names = files.map((file) => file.relativeName);
  if (format === 'gltf') {
    const text = await readSmallText(model.path);
    if (text === undefined) return [];
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return [];
    }
    const present = new Set(names);
    return gltfResourceUris(json).filter((uri) => {
      const at = gltfResourcePath(dir, uri);
      return at === undefined || !present.has(at);
    });
  }
  if (format !== 'obj') return [];
  const folder = indexNames(names, dir);
  const resolve = (reference: string) => resolveReference(reference, folder);
  const missing: string[] = [];
  for (const statement of objLibraryStatements(await readHead(model.path, OBJ_HEAD_BYTES))) {
    const library = resolveLibraryStatement(statement, resolve);
    missing.push(...library.missing);
    for (const found of library.found) {
      const file = files.find((candidate) => candidate.relativeName === found);
      const text = file && (await readSmallText(file.path));
      if (text === undefined) continue;
      for (const material of parseMtl(text)) {
        const maps = [material.diffuseMap, material.emissiveMap, material.normalMap];
        for (const map of [...maps, material.roughnessMap, material.metallicMap]) {
          if (map !== undefined && !resolve(map)) missing.push(map);
        }
      }
    }
  }
  return [...new Set(missing)];
}

/** The folder of a relative name, `''` at the root. */
function folderOf(relativeName: string): string {
  const dir = path.posix.dirname(relativeName);
  return dir === '.' ? '' : dir;
}

/** A file's text when it is at most {@link MAX_TEXT_BYTES}, else undefined. */
async function readSmallText(file: string): Promise<string | undefined> {
  if ((await stat(file)).size > MAX_TEXT_BYTES) return undefined;
  return readFile(file, 'utf8');
}

/** At most the first `bytes` of a file as UTF-8 text, as the OBJ parser decodes it, ending on a whole line. */
async function readHead(file: string, bytes: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, bytes);
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(length), 0, length, 0);
    const text = buffer.toString('utf8', 0, bytesRead);
    // The last line of a longer file may be cut off mid-way.
    return size > bytes ? text.slice(0, text.lastIndexOf('\n') + 1) : text;
  } finally {
    await handle.close();
  }
}
