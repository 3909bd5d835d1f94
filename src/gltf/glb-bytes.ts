import { Format, VertexLayout } from '@gltf-transform/core';
import type { Document, PlatformIO } from '@gltf-transform/core';
import { layOutBinaryChunk } from './glb-layout.ts';
import { standInLargeAccessors } from './stand-in-accessors.ts';

/** GLB magic `glTF`, and the chunk types `JSON` and `BIN\0`, as little-endian words. */
const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/** How {@link glbBytes} writes. */
export interface GlbWriteOptions {
  /** Called between the steps of the write, so a caller can show it is still working. */
  onStep?: () => void;
  /** Accessors at least this large are copied into the file by this module rather than by glTF-Transform's writer. */
  largeAccessorBytes?: number;
  /** Bytes copied between two calls of `onStep`. */
  stepBytes?: number;
}

const DEFAULT_LARGE_ACCESSOR_BYTES = 1 << 20;
const DEFAULT_STEP_BYTES = 16 << 20;

/**
 * Writes a document as GLB bytes, like `io.writeBinary`, copying each large accessor once, straight into one buffer
 * of the file's exact size. glTF-Transform's writer copies vertex data element by element and the binary chunk
 * three more times on the way, several seconds without a pause for tens of millions of triangles; here it writes
 * the JSON and the small data only, and the large accessors are copied in steps of `stepBytes` with `onStep`
 * between them. Vertex attributes are written one buffer view each (not interleaved).
 */
export async function glbBytes(
  io: PlatformIO,
  document: Document,
  options: GlbWriteOptions = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const onStep = options.onStep ?? (() => {});
  const standIns = standInLargeAccessors(
    document,
    options.largeAccessorBytes ?? DEFAULT_LARGE_ACCESSOR_BYTES,
  );
  let written;
  try {
    io.setVertexLayout(VertexLayout.SEPARATE);
    written = await io.writeJSON(document, { format: Format.GLB });
  } finally {
    standIns.restore();
  }
  onStep();
  const { json, resources } = written;
  const smallBin = (Object.values(resources)[0] as Uint8Array | undefined) ?? new Uint8Array(0);
  const layout = layOutBinaryChunk(json, smallBin, standIns.accessors, onStep);
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = pad4(text.byteLength);
  const binLength = pad4(layout.byteLength);
  const total = 12 + 8 + jsonLength + (binLength > 0 ? 8 + binLength : 0);
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
  if (binLength > 0) {
    const at = 20 + jsonLength;
    view.setUint32(at, binLength, true);
    view.setUint32(at + 4, CHUNK_BIN, true);
    layout.copyInto(glb.subarray(at + 8), options.stepBytes ?? DEFAULT_STEP_BYTES, onStep);
  }
  return glb;
}

function pad4(length: number): number {
  return Math.ceil(length / 4) * 4;
}
