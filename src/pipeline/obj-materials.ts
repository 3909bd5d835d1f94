import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Document, ILogger, Material, Texture } from '@gltf-transform/core';
import { KHRMaterialsIOR } from '@gltf-transform/extensions';
import { resolveReference } from './import-assimp-textures.ts';
import type { FolderIndex } from './import-assimp-textures.ts';
import type { MtlMaterial } from './mtl-library.ts';

/** Name of the material of faces that come before any `usemtl`. */
export const DEFAULT_MATERIAL = 'DefaultMaterial';

/** The grey of a material the MTL gives no `Kd` (assimp's default, kept so imports look as before). */
const DEFAULT_DIFFUSE: [number, number, number] = [0.6, 0.6, 0.6];

/**
 * Creates the glTF materials of the names faces use, from their MTL definitions, the way assimp's glTF export
 * reads them: `Kd` is the base colour, `d`/`Tr` its alpha (blended below 1), roughness from `Ks` and `Ns`
 * unless `Pr` gives it, metallic 0 unless `Pm` does, `Ke` emissive, `Ni` the IOR; `map_Kd`, `map_Ke` and `norm` become
 * textures read from the upload's folder. A name with no definition gets a default material under that name.
 */
export async function createObjMaterials(
  document: Document,
  used: Iterable<string>,
  library: Map<string, MtlMaterial>,
  folder: FolderIndex,
  logger: ILogger,
  step: string,
): Promise<Map<string, Material>> {
  const materials = new Map<string, Material>();
  const textures = new Map<string, Texture | undefined>();
  const texture = async (reference: string | undefined): Promise<Texture | undefined> => {
    if (reference === undefined) return undefined;
    if (!textures.has(reference))
      textures.set(reference, await readTexture(document, reference, folder, logger, step));
    return textures.get(reference);
  };
  for (const name of used) {
    const definition = library.get(name);
    if (!definition && name !== '') {
      logger.warn(`${step}: material "${name}" is not defined in any material library; it stays grey`);
    }
    const source = definition ?? { name: name === '' ? DEFAULT_MATERIAL : name };
    const material = document.createMaterial(source.name);
    const opacity = clamp01(source.opacity ?? 1);
    material
      .setBaseColorFactor([...(source.diffuse ?? DEFAULT_DIFFUSE), opacity])
      .setMetallicFactor(clamp01(source.metallic ?? 0))
      .setRoughnessFactor(clamp01(source.roughness ?? roughnessOf(source)))
      .setAlphaMode(opacity < 1 ? 'BLEND' : 'OPAQUE');
    if (source.ior !== undefined && source.ior >= 1) {
      const ior = document.createExtension(KHRMaterialsIOR).createIOR().setIOR(source.ior);
      material.setExtension(KHRMaterialsIOR.EXTENSION_NAME, ior);
    }
    if (source.emissive) material.setEmissiveFactor(source.emissive.map(clamp01) as [number, number, number]);
    const baseColor = await texture(source.diffuseMap);
    if (baseColor) material.setBaseColorTexture(baseColor);
    const emissive = await texture(source.emissiveMap);
    if (emissive) {
      material.setEmissiveTexture(emissive);
      if (!source.emissive) material.setEmissiveFactor([1, 1, 1]);
    }
    const normal = await texture(source.normalMap);
    if (normal) material.setNormalTexture(normal);
    materials.set(name, material);
  }
  return materials;
}

/** assimp's reading of Phong specular as roughness: shininess (of 1000) scaled by the specular's luminance. */
function roughnessOf(material: MtlMaterial): number {
  if (!material.specular || material.shininess === undefined) return 1;
  const [r, g, b] = material.specular;
  const intensity = r * 0.2125 + g * 0.7154 + b * 0.0721;
  return 1 - clamp01(Math.sqrt(Math.max(0, material.shininess) / 1000)) * intensity;
}

/** The image a map names, from the upload's folder; missing ones are left out with a warning. */
async function readTexture(
  document: Document,
  reference: string,
  folder: FolderIndex,
  logger: ILogger,
  step: string,
): Promise<Texture | undefined> {
  const file = resolveReference(reference, folder);
  if (!file) {
    logger.warn(`${step}: texture "${reference}" is not among the uploaded files; it is left out`);
    return undefined;
  }
  const name = path.basename(file);
  return document
    .createTexture(name)
    .setURI(name)
    .setImage(new Uint8Array(await readFile(file)));
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 1;
}
