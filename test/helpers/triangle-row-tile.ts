// One tile of many parts, one triangle each, as the tiler writes it: for the tiles' feature ids at their limits.
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { tileDocument } from '../../src/pipeline/tiles/tile-document.ts';
import type { TriangleSoup } from '../../src/pipeline/tiles/triangle-soup.ts';
import { quietLogger } from '../pipeline/documents.ts';

/** A soup of `parts` parts of one triangle each, in a row, every vertex in one tile. */
export function triangleRow(parts: number): {
  soup: TriangleSoup;
  geometry: { vertices: Uint32Array; indices: Uint32Array };
} {
  const positions = new Float32Array(parts * 9);
  const vertexPart = new Uint32Array(parts * 3);
  for (let part = 0; part < parts; part++) {
    positions.set([part, 0, 0, part + 0.5, 0, 0, part, 0.5, 0], part * 9);
    vertexPart.fill(part, part * 3, part * 3 + 3);
  }
  const indices = Uint32Array.from({ length: parts * 3 }, (_, at) => at);
  const soup: TriangleSoup = {
    positions,
    normals: null,
    vertexPart,
    vertexMaterial: new Uint16Array(parts * 3),
    uvs: null,
    colors: null,
    indices,
    parts: Array.from({ length: parts }, (_, part) => ({ group_id: `g${part}`, name: `part ${part}` })),
    materials: [
      {
        baseColor: [1, 1, 1, 1],
        baseColorTexture: null,
        metallic: 0,
        roughness: 1,
        doubleSided: true,
        blend: false,
      },
    ],
    textures: [],
  };
  return { soup, geometry: { vertices: indices.slice(), indices } };
}

/**
 * The GLB of one tile holding `parts` parts of one triangle each in a row (part `n`, group id `g<n>`, named
 * `part <n>`, at x = n).
 */
export async function triangleRowTile(parts: number): Promise<Uint8Array> {
  const { soup, geometry } = triangleRow(parts);
  const io = await createNodeIO();
  return io.writeBinary(tileDocument(soup, geometry, [], quietLogger));
}
