import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Document, ILogger, Material, Texture } from '@gltf-transform/core';
import { KHRMaterialsIOR } from '@gltf-transform/extensions';
import { resolveReference } from '../assimp/import-assimp-textures.ts';
import type { FolderIndex } from '../assimp/import-assimp-textures.ts';
import { srgbToLinear } from '../mesh-document.ts';
import type { MtlMaterial } from './mtl-library.ts';
import { packMetallicRoughness } from './obj-pbr-maps.ts';

/** Name of the material of faces that come before any `usemtl`. */
export const DEFAULT_MATERIAL = 'DefaultMaterial';

/** The linear grey of a material the MTL gives no `Kd` (assimp's default, kept so imports look as before). */
const DEFAULT_DIFFUSE: [number, number, number] = [0.6, 0.6, 0.6];

/**
 * Creates the glTF materials of the names faces use, from their MTL definitions, the way assimp's glTF export
 * reads them, but for `Kd`: the base colour, read as sRGB (as three.js's MTLLoader and Blender do, and as the
 * OBJ export writes it) and made linear; `d`/`Tr` its alpha (blended below 1), roughness from `Ks` and `Ns` unless
 * `Pr` gives it, metallic 0 unless `Pm` does, `Ke` emissive, `Ni` the IOR; `map_Kd`, `map_Ke` and `norm` become
 * textures read from the upload's folder, and `map_Pr`/`map_Pm` one metallic-roughness texture (their factors
 * then 1: the maps hold the values). A name with no definition gets a default material under that name.
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
    if (!textures.has(reference)) {
      const image = await readImage(reference, folder, logger, step);
      textures.set(
        reference,
        image && document.createTexture(image.name).setURI(image.name).setImage(image.data),
      );
    }
    return textures.get(reference);
  };
  const packed = new Map<string, PackedMaps | undefined>();
  const metallicRoughness = async (source: MtlMaterial): Promise<PackedMaps | undefined> => {
    if (source.roughnessMap === undefined && source.metallicMap === undefined) return undefined;
    const key = `${source.roughnessMap ?? ''}\n${source.metallicMap ?? ''}`;
    if (!packed.has(key)) packed.set(key, await packMaps(document, source, folder, logger, step));
    return packed.get(key);
  };
  for (const name of used) {
    const definition = library.get(name);
    if (!definition && name !== '') {
      logger.warn(`${step}: material "${name}" is not defined in any material library; it stays grey`);
    }
    const source = definition ?? { name: name === '' ? DEFAULT_MATERIAL : name };
    const material = document.createMaterial(source.name);
    const opacity = clamp01(source.opacity ?? 1);
    const diffuse = source.diffuse?.map((channel) => srgbToLinear(clamp01(channel))) ?? DEFAULT_DIFFUSE;
    material
      .setBaseColorFactor([diffuse[0], diffuse[1], diffuse[2], opacity])
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
    const pbr = await metallicRoughness(source);
    if (pbr) {
      material.setMetallicRoughnessTexture(pbr.texture);
      // A map that was read holds its value; the channel of one missing or unread is white, so the factor alone
      // (from the MTL's scalar) sets that one.
      if (pbr.roughness) material.setRoughnessFactor(1);
      if (pbr.metallic) material.setMetallicFactor(1);
    }
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
async function readImage(
  reference: string,
  folder: FolderIndex,
  logger: ILogger,
  step: string,
): Promise<{ name: string; data: Uint8Array } | undefined> {
  const file = resolveReference(reference, folder);
  if (!file) {
    logger.warn(`${step}: texture "${reference}" is not among the uploaded files; it is left out`);
    return undefined;
  }
  return { name: path.basename(file), data: new Uint8Array(await readFile(file)) };
}

/** `map_Pr` and `map_Pm` packed into one metallic-roughness texture; left out with a warning when unreadable. */
/** A packed metallic-roughness texture and which of its two maps were read into it. */
interface PackedMaps {
  texture: Texture;
  roughness: boolean;
  metallic: boolean;
}

async function packMaps(
  document: Document,
  source: MtlMaterial,
  folder: FolderIndex,
  logger: ILogger,
  step: string,
): Promise<PackedMaps | undefined> {
  const read = (reference: string | undefined) =>
    reference === undefined ? undefined : readImage(reference, folder, logger, step);
  const [roughness, metallic] = await Promise.all([read(source.roughnessMap), read(source.metallicMap)]);
  if (!roughness && !metallic) return undefined;
  try {
    const png = await packMetallicRoughness(roughness?.data, metallic?.data);
    const name = `${(roughness ?? metallic)!.name.replace(/\.[^.]+$/, '')}_metallicRoughness.png`;
    const texture = document.createTexture(name).setURI(name).setMimeType('image/png').setImage(png);
    return { texture, roughness: roughness !== undefined, metallic: metallic !== undefined };
  } catch (error) {
    logger.warn(
      `${step}: roughness/metalness maps of "${source.name}" unreadable, left out: ${String(error)}`,
    );
    return undefined;
  }
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 1;
}
