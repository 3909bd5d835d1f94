import { createHash } from 'node:crypto';

/** Blob key of one LOD: the content hash in the name lets clients cache it forever. */
export function lodKey(modelId: string, level: number, glb: Uint8Array): string {
  return lodKeyOfHash(modelId, level, createHash('sha256').update(glb).digest('hex'));
}

/** {@link lodKey} from the LOD's SHA-256 in hex, when whoever wrote the file already hashed it. */
export function lodKeyOfHash(modelId: string, level: number, sha256: string): string {
  return `models/${modelId}/lod${level}-${sha256.slice(0, 16)}.glb`;
}

/** Blob key of an uploaded original, under a name safe on every file system. */
export function sourceKey(modelId: string, filename: string): string {
  const safe =
    filename
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^\.+/, '')
      .slice(-120) || 'upload';
  return `models/${modelId}/source/${safe}`;
}

/** Prefix of every blob of a model (upload, LODs, thumbnail), removed with the model. */
export function modelPrefix(modelId: string): string {
  return `models/${modelId}/`;
}
