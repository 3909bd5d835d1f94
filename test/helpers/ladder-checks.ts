// What the delivery ladder promises of each level, checked the same way by the pipeline and the API tests.
import assert from 'node:assert/strict';
import type { Document, Texture } from '@gltf-transform/core';
import { listTextureSlots } from '@gltf-transform/functions';
import sharp from 'sharp';
import { readGlb, validationErrors } from '../pipeline/documents.ts';

/** The JSON chunk of a GLB: the first chunk, after the 12-byte header and 8-byte chunk header. */
export function glbJson(glb: Uint8Array): { extensionsUsed?: string[]; extensionsRequired?: string[] } {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const length = view.getUint32(12, true);
  assert.equal(view.getUint32(16, true), 0x4e4f534a, 'the first chunk is JSON');
  return JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as {
    extensionsUsed?: string[];
    extensionsRequired?: string[];
  };
}

/** A texture of a level as decoded: its slots, MIME type and size. */
export interface LevelTexture {
  slots: string[];
  mimeType: string;
  width: number;
  height: number;
  hasAlpha: boolean;
}

/** The textures of a document, in order, with their decoded sizes. */
export async function levelTextures(document: Document): Promise<LevelTexture[]> {
  return Promise.all(
    document
      .getRoot()
      .listTextures()
      .map(async (texture: Texture) => {
        const meta = await sharp(texture.getImage()!).metadata();
        return {
          slots: listTextureSlots(texture),
          mimeType: texture.getMimeType(),
          width: meta.width,
          height: meta.height,
          hasAlpha: meta.hasAlpha,
        };
      }),
  );
}

/**
 * Every triangle of every primitive as the exact bits of its corners' positions, sorted: equal for two documents
 * whose triangles are the same to the last bit, whatever order vertices and triangles are stored in. A triangle's
 * corners are rotated to start at the smallest, so winding counts but the starting corner does not.
 */
export function exactTriangles(document: Document): string[] {
  const triangles: string[] = [];
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (!position) continue;
      assert.ok(position.getArray() instanceof Float32Array, `${mesh.getName()} keeps float positions`);
      const bits = new Uint32Array(position.getArray()!.slice().buffer);
      const corner = (index: number) =>
        [bits[index * 3], bits[index * 3 + 1], bits[index * 3 + 2]]
          .map((word) => word.toString(16))
          .join(',');
      const indices = primitive.getIndices()?.getArray();
      const count = indices ? indices.length : position.getCount();
      for (let i = 0; i + 2 < count; i += 3) {
        const keys = [0, 1, 2].map((k) => corner(indices ? indices[i + k] : i + k));
        const first = keys.indexOf([...keys].sort()[0]);
        triangles.push(`${mesh.getName()}|${[0, 1, 2].map((k) => keys[(first + k) % 3]).join('|')}`);
      }
    }
  }
  return triangles.sort();
}

/**
 * Asserts the ladder on the three levels of one conversion; `plainLod0` is LOD 0 converted without compression.
 * A level listed `reduced: false` in `reduced` is the level before it again, byte for byte, and is not checked
 * against its own sizes.
 */
export async function assertLadder(
  lods: readonly Uint8Array[],
  plainLod0: Uint8Array,
  sourceSizes: ReadonlyArray<{ width: number; height: number }>,
  reduced: ReadonlyArray<boolean | null> = [],
): Promise<void> {
  const sides = [4096, 1024, 512];
  for (const [level, glb] of lods.entries()) {
    const label = `LOD ${level}`;
    if (level > 0 && reduced[level] === false) {
      assert.ok(
        Buffer.from(glb).equals(Buffer.from(lods[level - 1]!)),
        `${label} stands in with the level before it`,
      );
      continue;
    }
    const json = glbJson(glb);
    assert.ok(json.extensionsRequired?.includes('EXT_meshopt_compression'), `${label} is meshopt-compressed`);
    assert.equal(
      json.extensionsUsed?.includes('KHR_mesh_quantization') ?? false,
      level > 0,
      `${label}: quantized on LOD 1 and 2 only`,
    );
    assert.ok(json.extensionsRequired?.includes('EXT_texture_webp'), `${label} has WebP textures`);
    assert.deepEqual(await validationErrors(glb), [], `${label} validates`);
    const textures = await levelTextures(await readGlb(glb));
    assert.equal(textures.length, sourceSizes.length, `${label} keeps every texture`);
    for (const [i, texture] of textures.entries()) {
      const source = sourceSizes[i];
      const scale = Math.min(1, sides[level] / Math.max(source.width, source.height));
      assert.equal(texture.mimeType, 'image/webp', `${label} texture ${i} is WebP`);
      assert.deepEqual(
        [texture.width, texture.height],
        [Math.round(source.width * scale), Math.round(source.height * scale)],
        `${label} texture ${i} (${texture.slots.join(', ')}) within ${sides[level]} px`,
      );
    }
  }
  const plain = await readGlb(plainLod0);
  assert.ok(
    !glbJson(plainLod0).extensionsUsed?.includes('EXT_meshopt_compression'),
    'the plain LOD 0 is plain',
  );
  const exact = exactTriangles(plain);
  assert.ok(exact.length > 0, 'the model has triangles');
  assert.deepEqual(exactTriangles(await readGlb(lods[0])), exact, 'LOD 0 triangles are bit-exact');
}
