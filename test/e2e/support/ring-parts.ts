import { writeFile } from 'node:fs/promises';
import { createNodeIO } from '../../../src/gltf/create-io.ts';
import { emptyDocument } from '../../pipeline/documents.ts';
import { torus } from '../../pipeline/torus.ts';

/**
 * Writes a GLB of `parts` tori side by side along +X, each `around × tube × 2` triangles, its own node (named
 * `Ring <n>`) and material: a large model of several parts, made at test time so no big file is kept.
 */
export async function writeRingParts(
  file: string,
  parts: number,
  around: number,
  tube: number,
): Promise<void> {
  const document = emptyDocument();
  const buffer = document.getRoot().listBuffers()[0];
  const scene = document.getRoot().listScenes()[0];
  const mesh = torus(around, tube);
  for (let part = 0; part < parts; part++) {
    const accessor = (type: 'VEC3' | 'SCALAR', array: Float32Array | Uint32Array) =>
      document
        .createAccessor()
        .setType(type)
        .setArray(array as Float32Array<ArrayBuffer>)
        .setBuffer(buffer);
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', mesh.positions))
      .setIndices(accessor('SCALAR', mesh.indices))
      .setMaterial(document.createMaterial(`Ring ${part}`).setBaseColorFactor([0.75, 0.75, 0.78, 1]));
    const node = document
      .createNode(`Ring ${part}`)
      .setMesh(document.createMesh(`Ring ${part}`).addPrimitive(primitive))
      .setTranslation([part * 2.8, 0, 0]);
    scene.addChild(node);
  }
  const io = await createNodeIO();
  await writeFile(file, await io.writeBinary(document));
}
