import type { Readable } from 'node:stream';
import { storedLods } from '../../catalog/schemas.ts';
import type { ModelPartRow, ModelRow } from '../../db/database.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { readPartHierarchy, type PartHierarchy } from './part-hierarchy.ts';

/** The most bytes of a GLB's JSON chunk read for the node tree; past it the tree is treated as unknown. */
export const MAX_TREE_JSON_BYTES = 256 * 1024 * 1024;

/**
 * The first bytes of a stream up to the end of a GLB's JSON chunk (its header says how long), so a model of
 * hundreds of megabytes is read only as far as its node tree.
 */
async function glbHead(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  let wanted = 20;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (wanted === 20 && size >= 20) {
        const head = Buffer.concat(chunks);
        wanted = 20 + Math.min(head.readUInt32LE(12), MAX_TREE_JSON_BYTES);
      }
      if (size >= wanted) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

/**
 * The node tree of a completed model's LOD 0 (which parts each IFC object stands for); empty for a model without
 * one. `parts` are the model's parts.
 */
export async function loadPartHierarchy(
  blobs: BlobStore,
  model: ModelRow,
  parts: readonly ModelPartRow[],
): Promise<PartHierarchy> {
  const lod0 = model.status === 'completed' ? storedLods(model).find((lod) => lod.level === 0) : undefined;
  if (!lod0) return new Map();
  const ids = new Set(parts.map((part) => part.group_id));
  return readPartHierarchy(await glbHead(await blobs.read(lod0.key)), (id) => ids.has(id));
}
