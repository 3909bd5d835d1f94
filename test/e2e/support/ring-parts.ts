import { writeFile } from 'node:fs/promises';
import { createNodeIO } from '../../../src/gltf/create-io.ts';
import { emptyDocument } from '../../pipeline/documents.ts';
import { torus } from '../../pipeline/torus.ts';

/** How the rings' surfaces are made. */
export interface RingOptions {
  /**
   * Height of a scan's noise on the surface, in metres (0 unless set): every vertex moves along a random direction
   * by up to this much, different on each ring and the same each run. Smooth rings are one mesh drawn four times,
   * which a conversion stores once, and a smooth torus compresses far better than a scan; rough rings are four
   * meshes that weigh what scanned surfaces do.
   */
  roughness?: number;
}

/**
 * Writes a GLB of `parts` tori side by side along +X, each `around × tube × 2` triangles, its own node (named
 * `Ring <n>`) and material: a large model of several parts, made at test time so no big file is kept.
 */
export async function writeRingParts(
  file: string,
  parts: number,
  around: number,
  tube: number,
  options: RingOptions = {},
): Promise<void> {
  const document = emptyDocument();
  const buffer = document.getRoot().listBuffers()[0];
  const scene = document.getRoot().listScenes()[0];
  const smooth = torus(around, tube);
  for (let part = 0; part < parts; part++) {
    const mesh = options.roughness
      ? { ...smooth, positions: roughen(smooth.positions, options.roughness, part + 1) }
      : smooth;
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

/** A copy of `positions` with every vertex moved by up to `amount` along each axis (xorshift32 from `seed`). */
function roughen(
  positions: Float32Array<ArrayBuffer>,
  amount: number,
  seed: number,
): Float32Array<ArrayBuffer> {
  const rough = positions.slice();
  let state = (0x9e3779b9 * seed) >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0xffffffff;
  };
  for (let at = 0; at < rough.length; at++) rough[at]! += (next() * 2 - 1) * amount;
  return rough;
}
