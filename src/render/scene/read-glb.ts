import { NodeIO } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import { GLTF_EXTENSIONS } from '../../gltf/gltf-extensions.ts';
import { MeshoptDecoder } from 'meshoptimizer/decoder';

let io: Promise<NodeIO> | undefined;

/** One NodeIO for the process: registering extensions and waiting for the meshopt decoder is not free. */
function getIO(): Promise<NodeIO> {
  io ??= MeshoptDecoder.ready.then(() =>
    new NodeIO()
      .registerExtensions(GLTF_EXTENSIONS)
      .registerDependencies({ 'meshopt.decoder': MeshoptDecoder }),
  );
  return io;
}

/** Parses GLB bytes into a glTF-Transform document; a file that is not a readable GLB rejects with a clear Error. */
export async function readGlb(glb: Uint8Array): Promise<Document> {
  if (!(glb instanceof Uint8Array) || glb.byteLength < 20) {
    throw new Error('render-thumbnail: input is not a GLB file (too short)');
  }
  const magic = glb[0] | (glb[1] << 8) | (glb[2] << 16) | (glb[3] << 24);
  if (magic !== 0x46546c67) throw new Error('render-thumbnail: input is not a GLB file (bad magic)');
  const declared = (glb[8] | (glb[9] << 8) | (glb[10] << 16) | (glb[11] << 24)) >>> 0;
  if (declared > glb.byteLength) {
    throw new Error(
      `render-thumbnail: GLB is truncated (header says ${declared} bytes, got ${glb.byteLength})`,
    );
  }
  try {
    return await (await getIO()).readBinary(glb);
  } catch (error) {
    throw new Error(`render-thumbnail: cannot read GLB: ${(error as Error).message}`, { cause: error });
  }
}
