import type { FlatScene } from './flatten-parts.ts';
import { identifier, linearToSrgb, materialTable, num, uniqueName } from './material-table.ts';
import { writeZip } from './write-zip.ts';

/**
 * Writes OBJ + MTL (+ the textures) as one zip: an `o` per part named after it, world-space positions in
 * metres with +Y up (the frame Vitrine reads OBJ in), normals and UVs where the source has them, a `usemtl` per
 * material. `Kd` holds the base colour in sRGB, as MTL is read for display (three.js's MTLLoader); `d` the
 * opacity when it blends; `map_Kd` the base colour texture, the normal map as both `map_Bump` (Blender) and `norm`
 * (three.js), and from the PBR extension of MTL
 * `map_Pr`/`map_Pm` the roughness and metalness images split out of glTF's packed texture (factors baked in), with
 * `Pr`/`Pm` their means for readers that take numbers only.
 */
export async function writeObjZip(scene: FlatScene, title: string): Promise<Uint8Array> {
  const base = identifier(title, 'model');
  const { entries, textures } = await materialTable(scene, { splitMetallicRoughness: true });
  const obj: string[] = [`# Vitrine export: ${title.replace(/[\r\n]+/g, ' ')}`, `mtllib ${base}.mtl`];
  const partNames = new Set<string>();
  let vertexBase = 1;
  let uvBase = 1;
  let normalBase = 1;
  for (const part of scene.parts) {
    if (part.primitives.length === 0) continue;
    obj.push(`o ${uniqueName(identifier(part.name, 'Part'), partNames)}`);
    for (const primitive of part.primitives) {
      const { positions, normals, uvs, indices } = primitive;
      const count = positions.length / 3;
      for (let i = 0; i < positions.length; i += 3) {
        obj.push(`v ${num(positions[i])} ${num(positions[i + 1])} ${num(positions[i + 2])}`);
      }
      // OBJ's v counts up from the bottom of the image, glTF's down from the top.
      if (uvs) for (let i = 0; i < uvs.length; i += 2) obj.push(`vt ${num(uvs[i])} ${num(1 - uvs[i + 1])}`);
      if (normals) {
        for (let i = 0; i < normals.length; i += 3) {
          obj.push(`vn ${num(normals[i])} ${num(normals[i + 1])} ${num(normals[i + 2])}`);
        }
      }
      const entry = primitive.material ? entries.get(primitive.material) : undefined;
      if (entry) obj.push(`usemtl ${entry.name}`);
      const corner = (index: number): string => {
        const v = vertexBase + index;
        if (uvs && normals) return `${v}/${uvBase + index}/${normalBase + index}`;
        if (normals) return `${v}//${normalBase + index}`;
        if (uvs) return `${v}/${uvBase + index}`;
        return String(v);
      };
      for (let t = 0; t < indices.length; t += 3) {
        obj.push(`f ${corner(indices[t])} ${corner(indices[t + 1])} ${corner(indices[t + 2])}`);
      }
      vertexBase += count;
      if (uvs) uvBase += count;
      if (normals) normalBase += count;
    }
  }

  const mtl: string[] = [`# Vitrine export: ${title.replace(/[\r\n]+/g, ' ')}`];
  for (const entry of entries.values()) {
    const [r, g, b, a] = entry.baseColor;
    mtl.push(
      '',
      `newmtl ${entry.name}`,
      `Kd ${num(linearToSrgb(r))} ${num(linearToSrgb(g))} ${num(linearToSrgb(b))}`,
      'Ka 0 0 0',
      'Ks 0 0 0',
      `d ${num(entry.blend ? a : 1)}`,
      `Pm ${num(entry.metallic)}`,
      `Pr ${num(entry.roughness)}`,
      `Ni ${num(entry.ior)}`,
      'illum 2',
    );
    if (entry.baseColorTexture) mtl.push(`map_Kd ${entry.baseColorTexture.path}`);
    if (entry.normalTexture) {
      const scale = entry.normalScale === 1 ? '' : `-bm ${num(entry.normalScale)} `;
      // Blender (and most DCC tools) read a normal map from `map_Bump` only; three.js's MTLLoader from `norm`, and
      // the bump map it also makes of `map_Bump` goes unused, as its shaders take a normal map over a bump map.
      mtl.push(`map_Bump ${scale}${entry.normalTexture.path}`, `norm ${scale}${entry.normalTexture.path}`);
    }
    if (entry.roughnessTexture) mtl.push(`map_Pr ${entry.roughnessTexture.path}`);
    if (entry.metallicTexture) mtl.push(`map_Pm ${entry.metallicTexture.path}`);
  }
  const encoder = new TextEncoder();
  return writeZip(
    [
      { name: `${base}.obj`, data: encoder.encode(obj.join('\n') + '\n') },
      { name: `${base}.mtl`, data: encoder.encode(mtl.join('\n') + '\n') },
      ...textures.map((texture) => ({ name: texture.path, data: texture.data })),
    ],
    { deflate: true },
  );
}
