/** Alignment every buffer view of a tile's binary chunk starts at: what `EXT_structural_metadata` asks at most. */
export const BUFFER_VIEW_ALIGNMENT = 8;

const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/** A glTF JSON's parts this step reads and moves: byte ranges into the GLB's binary chunk (buffer 0). */
interface RangeDef {
  buffer: number;
  byteOffset?: number;
  byteLength: number;
}
interface GltfJson {
  buffers?: { byteLength: number; uri?: string }[];
  bufferViews?: (RangeDef & { extensions?: { EXT_meshopt_compression?: RangeDef } })[];
}

/**
 * Lays a GLB's binary chunk out anew with every buffer view (and every range `EXT_meshopt_compression` reads from
 * it) starting at a multiple of 8 bytes, their bytes and lengths unchanged. glTF-Transform packs the
 * `EXT_structural_metadata` columns one after another, so a UINT32 `stringOffsets` view follows the string bytes
 * before it at any offset; readers that view it as a `Uint32Array` (CesiumJS) throw, and the 3D Tiles validator
 * reports `METADATA_INVALID_ALIGNMENT`. Ranges that overlap move together, so no reference into them changes
 * meaning; bytes no range covers are dropped. A GLB without a binary chunk is returned as it is.
 */
export function alignBufferViews(glb: Uint8Array): Uint8Array {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  if (glb.byteLength < 20 || view.getUint32(0, true) !== GLB_MAGIC)
    throw new Error('align-buffer-views: not a GLB');
  const jsonLength = view.getUint32(12, true);
  if (view.getUint32(16, true) !== CHUNK_JSON)
    throw new Error('align-buffer-views: the GLB does not start with JSON');
  const binAt = 20 + jsonLength;
  if (binAt + 8 > glb.byteLength || view.getUint32(binAt + 4, true) !== CHUNK_BIN) return glb;
  const bin = glb.subarray(binAt + 8, binAt + 8 + view.getUint32(binAt, true));
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, binAt))) as GltfJson;

  // Every range into buffer 0 (the binary chunk), by where it starts.
  const ranges: RangeDef[] = [];
  for (const bufferView of json.bufferViews ?? []) {
    if (bufferView.buffer === 0) ranges.push(bufferView);
    const compressed = bufferView.extensions?.EXT_meshopt_compression;
    if (compressed && compressed.buffer === 0) ranges.push(compressed);
  }
  const start = (range: RangeDef) => range.byteOffset ?? 0;
  ranges.sort((a, b) => start(a) - start(b));

  // Overlapping ranges form one block, moved whole to the next aligned offset.
  const pieces: Uint8Array[] = [];
  let length = 0;
  let index = 0;
  while (index < ranges.length) {
    const blockStart = start(ranges[index]);
    let blockEnd = blockStart + ranges[index].byteLength;
    let last = index + 1;
    while (last < ranges.length && start(ranges[last]) < blockEnd) {
      blockEnd = Math.max(blockEnd, start(ranges[last]) + ranges[last].byteLength);
      last++;
    }
    const padding = (BUFFER_VIEW_ALIGNMENT - (length % BUFFER_VIEW_ALIGNMENT)) % BUFFER_VIEW_ALIGNMENT;
    if (padding) pieces.push(new Uint8Array(padding));
    length += padding;
    for (let moved = index; moved < last; moved++)
      ranges[moved].byteOffset = length + start(ranges[moved]) - blockStart;
    pieces.push(bin.subarray(blockStart, blockEnd));
    length += blockEnd - blockStart;
    index = last;
  }
  if (json.buffers?.[0]) json.buffers[0].byteLength = length;

  const jsonBytes = padded(new TextEncoder().encode(JSON.stringify(json)), 0x20);
  const binBytes = padded(concat(pieces, length), 0);
  const out = new Uint8Array(12 + 8 + jsonBytes.byteLength + 8 + binBytes.byteLength);
  const outView = new DataView(out.buffer);
  outView.setUint32(0, GLB_MAGIC, true);
  outView.setUint32(4, 2, true);
  outView.setUint32(8, out.byteLength, true);
  outView.setUint32(12, jsonBytes.byteLength, true);
  outView.setUint32(16, CHUNK_JSON, true);
  out.set(jsonBytes, 20);
  const outBinAt = 20 + jsonBytes.byteLength;
  outView.setUint32(outBinAt, binBytes.byteLength, true);
  outView.setUint32(outBinAt + 4, CHUNK_BIN, true);
  out.set(binBytes, outBinAt + 8);
  return out;
}

/** `pieces` joined into one array of `length` bytes. */
function concat(pieces: Uint8Array[], length: number): Uint8Array {
  const joined = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    joined.set(piece, at);
    at += piece.byteLength;
  }
  return joined;
}

/** `bytes` padded to a multiple of 4 with `fill`, as a GLB chunk must be. */
function padded(bytes: Uint8Array, fill: number): Uint8Array {
  const length = Math.ceil(bytes.byteLength / 4) * 4;
  if (length === bytes.byteLength) return bytes;
  const out = new Uint8Array(length).fill(fill);
  out.set(bytes);
  return out;
}
