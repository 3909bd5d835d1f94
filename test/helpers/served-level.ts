// A level as the viewer receives it, for the viewer's loading tests: compressed and loaded as served.
import type { Document } from '@gltf-transform/core';
import { MeshoptEncoder } from 'meshoptimizer';
import type { GLTF } from 'three/addons/loaders/GLTFLoader.js';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { compressLod } from '../../src/pipeline/lods/compress-lod.ts';
import { createPartsLoader } from '../../web/src/viewer/tile-parts.ts';
import { quietLogger } from '../pipeline/documents.ts';

/** `document` meshopt-compressed and quantized as LOD 1 and 2 are served (consumed), then loaded by the viewer's loader. */
export async function loadServedLevel(document: Document): Promise<GLTF> {
  const served = await compressLod(
    document,
    { encoder: MeshoptEncoder, consumeSource: true },
    { logger: quietLogger },
  );
  const glb = await (await createNodeIO()).writeBinary(served);
  return createPartsLoader().parseAsync(glb.slice().buffer, '');
}
