/** glTF's TRIANGLES draw mode, the default. */
const TRIANGLES = 4;

interface GltfJson {
  accessors?: { count: number }[];
  meshes?: { primitives: { mode?: number; indices?: number; attributes: Record<string, number> }[] }[];
}

/**
 * Triangles a GLB's meshes draw, read from its JSON chunk alone: the geometry (compressed or not) is never
 * decoded, so a tile's weight is known before it is loaded. Throws on bytes that are not a GLB.
 */
export function glbTriangleCount(glb: Uint8Array): number {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  // Header (magic, version, length), then the first chunk, which GLB requires to be JSON.
  if (
    glb.byteLength < 20 ||
    view.getUint32(0, true) !== 0x46546c67 ||
    view.getUint32(16, true) !== 0x4e4f534a
  )
    throw new Error('not a GLB file');
  const length = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as GltfJson;
  let triangles = 0;
  for (const mesh of json.meshes ?? []) {
    for (const primitive of mesh.primitives) {
      if ((primitive.mode ?? TRIANGLES) !== TRIANGLES) continue;
      const accessor = primitive.indices ?? primitive.attributes.POSITION;
      triangles += Math.floor((json.accessors?.[accessor]?.count ?? 0) / 3);
    }
  }
  return triangles;
}
