import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Document, GLTF, ILogger } from '@gltf-transform/core';
import type sharp from 'sharp';
import { decodeTga } from './import-assimp-tga.ts';

/** sharp's default export, passed in so the native module loads only when an image needs converting. */
export type SharpFactory = typeof sharp;

/** Files of a model's folder by lower-case relative path and by lower-case base name. */
export interface FolderIndex {
  byPath: Map<string, string>;
  byName: Map<string, string>;
}

/** Most files looked at in a model's folder; an extracted archive is already limited, this guards a bare folder. */
const MAX_FOLDER_FILES = 10_000;

/** Lists the files under `dir` so references can be matched without caring about case or slashes. */
export async function indexFolder(dir: string): Promise<FolderIndex> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const byPath = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const entry of entries.slice(0, MAX_FOLDER_FILES)) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    byPath.set(path.relative(dir, absolute).split(path.sep).join('/').toLowerCase(), absolute);
    if (!byName.has(entry.name.toLowerCase())) byName.set(entry.name.toLowerCase(), absolute);
  }
  return { byPath, byName };
}

/**
 * Finds the file an image reference names, the way the authoring tool meant it: Windows
 * separators (`.\SpiderTex.jpg`), absolute paths from the author's machine whose base name is in the
 * folder, percent-encoding and case differences. Only files inside the folder can match.
 */
export function resolveReference(uri: string, folder: FolderIndex): string | undefined {
  let reference = uri;
  try {
    reference = decodeURIComponent(uri);
  } catch {
    // A stray '%' is more likely part of a file name than an escape.
  }
  reference = reference.replace(/\\/g, '/').replace(/^file:\/+/i, '');
  const relative = path.posix
    .normalize(reference.replace(/^[a-z]:\//i, '/'))
    .replace(/^(\.\/|\/)+/, '')
    .toLowerCase();
  return folder.byPath.get(relative) ?? folder.byName.get(path.posix.basename(relative));
}

/**
 * Replaces the external image URIs of an assimp glTF with resources read from the model's folder,
 * returning them keyed by the new URI; unresolved images keep a URI with no resource so their
 * textures can be dropped after reading.
 */
export async function readImageResources(
  json: GLTF.IGLTF,
  folder: FolderIndex,
  logger: ILogger,
  name: string,
): Promise<Record<string, Uint8Array>> {
  const resources: Record<string, Uint8Array> = {};
  for (const [index, image] of (json.images ?? []).entries()) {
    if (image.uri === undefined || image.uri.startsWith('data:')) continue;
    const file = resolveReference(image.uri, folder);
    const key = `image-${index}-${path.posix.basename(image.uri.replace(/\\/g, '/'))}`;
    if (file) {
      resources[key] = new Uint8Array(await readFile(file));
    } else {
      logger.warn(`${name}: texture "${image.uri}" is not among the uploaded files; it is left out`);
    }
    image.uri = key;
  }
  return resources;
}

/**
 * Leaves every texture as an embedded PNG or JPEG: other formats sharp reads and TGA are converted to
 * PNG, and textures with no data or an undecodable image are removed with a warning.
 */
export async function embedWebImages(
  document: Document,
  loadSharp: () => Promise<SharpFactory>,
  logger: ILogger,
  name: string,
): Promise<void> {
  for (const texture of document.getRoot().listTextures()) {
    const label = texture.getURI().replace(/^image-\d+-/, '') || texture.getName() || 'embedded image';
    const image = texture.getImage();
    if (!image || image.byteLength === 0) {
      texture.dispose();
      continue;
    }
    if (isPng(image) || isJpeg(image)) {
      texture.setMimeType(isPng(image) ? 'image/png' : 'image/jpeg');
      continue;
    }
    const png = await toPng(image, loadSharp);
    if (!png) {
      logger.warn(`${name}: texture "${label}" is in an image format that cannot be decoded; it is left out`);
      texture.dispose();
      continue;
    }
    logger.debug(`${name}: converted texture "${label}" to PNG`);
    texture
      .setImage(png)
      .setMimeType('image/png')
      .setURI(label.replace(/\.[^./]*$/, '') + '.png');
  }
}

/** PNG bytes of an image sharp or the TGA decoder can read, or `undefined`. */
async function toPng(
  image: Uint8Array,
  loadSharp: () => Promise<SharpFactory>,
): Promise<Uint8Array | undefined> {
  const sharp = await loadSharp();
  try {
    return new Uint8Array(await sharp(image).png().toBuffer());
  } catch {
    // Not a format sharp knows; TGA has no signature, so it is tried last.
  }
  try {
    const { width, height, data } = decodeTga(image);
    return new Uint8Array(
      await sharp(data, { raw: { width, height, channels: 4 } })
        .png()
        .toBuffer(),
    );
  } catch {
    return undefined;
  }
}

function isPng(bytes: Uint8Array): boolean {
  return bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
}

function isJpeg(bytes: Uint8Array): boolean {
  return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}
