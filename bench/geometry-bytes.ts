/** GLB magic `glTF` and the JSON chunk type, as little-endian words. */
const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;

/**
 * Bytes of a GLB that are not embedded images: its JSON and its geometry (and animation) data. Levels of detail
 * are compared by this, since simplification shrinks geometry while textures are resized by a step of their own.
 * A file that is not a GLB counts whole.
 */
export function geometryBytes(glb: Uint8Array): number {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  if (glb.byteLength < 20 || view.getUint32(0, true) !== GLB_MAGIC || view.getUint32(16, true) !== CHUNK_JSON)
    return glb.byteLength;
  const length = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as {
    images?: { bufferView?: number }[];
    bufferViews?: { byteLength: number }[];
  };
  // An image's view counts once even when two images share it.
  const imageViews = new Set((json.images ?? []).flatMap((image) => image.bufferView ?? []));
  let images = 0;
  for (const index of imageViews) images += json.bufferViews?.[index]?.byteLength ?? 0;
  return glb.byteLength - images;
}
