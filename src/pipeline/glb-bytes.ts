import { Format } from '@gltf-transform/core';
import type { Document, PlatformIO } from '@gltf-transform/core';

/** GLB magic `glTF`, and the chunk types `JSON` and `BIN\0`, as little-endian words. */
const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/**
 * Writes a document as GLB bytes, like `io.writeBinary`, assembling the file in one buffer of its exact size:
 * `writeBinary` copies the binary chunk three more times on the way (chunk, padding, whole file), which for a
 * model of millions of triangles is hundreds of megabytes held at once. `onStep` is called between the steps of
 * the write (each about a second for 20 M triangles), so a caller can show it is still working.
 */
export async function glbBytes(
  io: PlatformIO,
  document: Document,
  onStep?: () => void,
): Promise<Uint8Array<ArrayBuffer>> {
  const { json, resources } = await io.writeJSON(document, { format: Format.GLB });
  onStep?.();
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = pad4(text.byteLength);
  const bin = Object.values(resources)[0] as Uint8Array | undefined;
  const binLength = bin && bin.byteLength > 0 ? pad4(bin.byteLength) : 0;
  const total = 12 + 8 + jsonLength + (binLength > 0 ? 8 + binLength : 0);
  onStep?.();
  const glb = new Uint8Array(total);
  const view = new DataView(glb.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, CHUNK_JSON, true);
  glb.set(text, 20);
  // The JSON chunk is padded with spaces, the binary chunk with zeros (the new buffer's own).
  glb.fill(0x20, 20 + text.byteLength, 20 + jsonLength);
  if (bin && binLength > 0) {
    const at = 20 + jsonLength;
    view.setUint32(at, binLength, true);
    view.setUint32(at + 4, CHUNK_BIN, true);
    glb.set(bin, at + 8);
  }
  return glb;
}

function pad4(length: number): number {
  return Math.ceil(length / 4) * 4;
}
