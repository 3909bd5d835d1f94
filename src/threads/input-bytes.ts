import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ImportSource } from '../pipeline/types.ts';

const MIB = 1024 * 1024;

/**
 * A .gltf larger than this counts by its own size only: its JSON would be parsed on the caller's event loop (about
 * 30 ms for 4 MiB), and a .gltf this large mostly holds its buffers inline, where its size already counts them.
 */
const MAX_GLTF_JSON_BYTES = 4 * MIB;

/**
 * How many bytes of model a conversion will read, to tell a big input from a small one: the file's size, and for
 * a .gltf the sizes of the buffer files it names (its geometry lives there, the JSON is small). A file that cannot
 * be read counts 0: the conversion then says what is wrong.
 */
export async function inputBytes(source: ImportSource): Promise<number> {
  const size = await sizeOf(source.file);
  if (source.format !== 'gltf' || size > MAX_GLTF_JSON_BYTES) return size;
  let buffers: { uri?: unknown }[] = [];
  try {
    const json = JSON.parse(await readFile(source.file, 'utf8')) as { buffers?: { uri?: unknown }[] };
    if (Array.isArray(json.buffers)) buffers = json.buffers;
  } catch {
    return size;
  }
  const files = buffers
    .map((buffer) => buffer?.uri)
    .filter((uri): uri is string => typeof uri === 'string' && !uri.startsWith('data:'))
    .map((uri) => path.resolve(path.dirname(source.file), safeDecode(uri)));
  const sizes = await Promise.all([...new Set(files)].map(sizeOf));
  return sizes.reduce((sum, bytes) => sum + bytes, size);
}

async function sizeOf(file: string): Promise<number> {
  return stat(file).then(
    (stats) => (stats.isFile() ? stats.size : 0),
    () => 0,
  );
}

function safeDecode(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}
