import path from 'node:path';
import type { FolderIndex } from '../assimp/import-assimp-textures.ts';

/**
 * The files a .gltf names outside itself: the URIs of its buffers and images that are neither `data:` URIs nor
 * absolute URLs, percent-decoded as glTF-Transform decodes them, in the order they appear, each once.
 */
export function gltfResourceUris(json: unknown): string[] {
  const { buffers, images } = (json ?? {}) as { buffers?: unknown; images?: unknown };
  const uris = new Set<string>();
  for (const list of [buffers, images]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const uri = (item as { uri?: unknown } | null)?.uri;
      if (
        typeof uri !== 'string' ||
        uri === '' ||
        uri.startsWith('data:') ||
        /^[a-z][a-z0-9+.-]*:\/\//i.test(uri)
      )
        continue;
      uris.add(decodeUri(uri));
    }
  }
  return [...uris];
}

/**
 * Where a .gltf's resource lies, as a `/`-separated path relative to the upload's root, or undefined when it
 * climbs above it; `gltfDir` is the .gltf's own folder in the same terms (`''` at the root).
 */
export function gltfResourcePath(gltfDir: string, uri: string): string | undefined {
  const joined = path.posix.normalize(path.posix.join(gltfDir || '.', uri));
  return joined === '..' || joined.startsWith('../') || path.posix.isAbsolute(joined) ? undefined : joined;
}

/** The `mtllib` statements of OBJ text, each as written after the keyword (comments removed). */
export function objLibraryStatements(text: string): string[] {
  const statements: string[] = [];
  for (const match of text.matchAll(/^[ \t]*mtllib[ \t]+([^\r\n#]*)/gm)) {
    const statement = match[1].trim();
    if (statement !== '') statements.push(statement);
  }
  return statements;
}

/**
 * The files one `mtllib` statement names, the way the OBJ importer reads it: the whole statement when it names
 * a file of the folder (a name with spaces), else each word. Returns the found files and the names not found.
 */
export function resolveLibraryStatement(
  statement: string,
  resolve: (reference: string) => string | undefined,
): { found: string[]; missing: string[] } {
  const whole = resolve(statement);
  if (whole) return { found: [whole], missing: [] };
  const found: string[] = [];
  const missing: string[] = [];
  for (const reference of statement.split(/\s+/)) {
    const file = resolve(reference);
    if (file) found.push(file);
    else missing.push(reference);
  }
  return { found, missing };
}

/**
 * A {@link FolderIndex} over names rather than files on disk: `names` are `/`-separated paths relative to the
 * upload's root, and only those under `dir` are indexed, relative to it, as `indexFolder(dir)` would list them.
 * The index maps to the names themselves.
 */
export function indexNames(names: readonly string[], dir: string): FolderIndex {
  const byPath = new Map<string, string>();
  const byName = new Map<string, string>();
  const prefix = dir === '' ? '' : `${dir}/`;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    byPath.set(name.slice(prefix.length).toLowerCase(), name);
    const base = path.posix.basename(name).toLowerCase();
    if (!byName.has(base)) byName.set(base, name);
  }
  return { byPath, byName };
}

/** The message for a model whose resources are missing: names them and says how to send them. */
export function missingResourcesMessage(modelName: string, missing: readonly string[]): string {
  const listed = missing.map((name) => `"${name}"`).join(', ');
  return (
    `${modelName} refers to ${missing.length === 1 ? 'a file' : 'files'} that ${missing.length === 1 ? 'was' : 'were'} ` +
    `not uploaded with it: ${listed}. Send the model and its files in one request (one "file" field each; ` +
    `in the viewer, choose or drop them together, or their folder), or upload them in one zip`
  );
}

function decodeUri(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}
