import type { Material, Texture } from '@gltf-transform/core';
import type { IOR } from '@gltf-transform/extensions';
import type { FlatScene } from './flatten-parts.ts';
import { metallicRoughnessMeans, portableImage, splitMetallicRoughness } from './texture-images.ts';

/** A texture image as the file formats store it beside the model. */
export interface TextureFile {
  /** Path inside the package, e.g. `textures/0.png`. */
  path: string;
  data: Uint8Array;
}

/** One material of the scene, read once for the writers that do not speak glTF. */
export interface MaterialEntry {
  /** Unique among the scene's materials, made of letters, digits and `_` (valid in MTL, USD and XML). */
  name: string;
  /** Linear RGBA, as glTF stores it. */
  baseColor: [number, number, number, number];
  /**
   * Metalness as one number: the factor, or with a texture the texture's mean times the factor (what a reader that
   * takes no map should use); 0 when a metallic-roughness texture had to be left out, never its factor alone.
   */
  metallic: number;
  /** Roughness as one number, read as {@link MaterialEntry.metallic} is; 0.5 × the factor when the texture is left out. */
  roughness: number;
  /** glTF's metallic and roughness factors, which multiply {@link MaterialEntry.metallicRoughnessTexture}. */
  metallicFactor: number;
  roughnessFactor: number;
  /** Index of refraction (KHR_materials_ior, else glTF's 1.5). */
  ior: number;
  /** Whether alpha blends (BLEND) rather than being ignored (OPAQUE) or cut (MASK). */
  blend: boolean;
  doubleSided: boolean;
  /** The base colour texture (sRGB), as PNG or JPEG. */
  baseColorTexture?: TextureFile;
  /** The tangent-space normal map (linear, +Y green as glTF), with its scale. */
  normalTexture?: TextureFile;
  normalScale: number;
  /** glTF's packed metallic-roughness texture: roughness in green, metalness in blue. */
  metallicRoughnessTexture?: TextureFile;
  /** Roughness alone, factor baked in (only with `splitMetallicRoughness`). */
  roughnessTexture?: TextureFile;
  /** Metalness alone, factor baked in (only with `splitMetallicRoughness`). */
  metallicTexture?: TextureFile;
}

/** Materials by the glTF material they come from, with the textures they use. */
export interface MaterialTable {
  entries: Map<Material, MaterialEntry>;
  textures: TextureFile[];
}

/** Options of {@link materialTable}. */
export interface MaterialTableOptions {
  /** Also write the metallic-roughness texture as separate roughness and metalness images (MTL's `map_Pr`/`map_Pm`). */
  splitMetallicRoughness?: boolean;
}

/** Roughness guessed for a surface whose metallic-roughness texture is left out: its factor times a middle value. */
const DROPPED_ROUGHNESS_SHARE = 0.5;

/**
 * Reads every material the flattened scene uses, naming each uniquely and collecting its texture files: base colour,
 * normal and metallic-roughness textures, each written once however many materials share it. A texture whose image
 * no format here can carry (KTX2) is left out with its factors replaced, so a dropped map never leaves a surface at
 * glTF's "metallic 1, roughness 1" that only the map had tempered.
 */
export async function materialTable(
  scene: FlatScene,
  options: MaterialTableOptions = {},
): Promise<MaterialTable> {
  const entries = new Map<Material, MaterialEntry>();
  const files = new Map<string, TextureFile | null>();
  const splits = new Map<
    string,
    { roughness: TextureFile; metallic: TextureFile; meanRoughness: number; meanMetallic: number }
  >();
  const textureIds = new Map<Texture, number>();
  const used = new Set<string>();

  const add = (path: string, data: Uint8Array): TextureFile => ({ path, data });
  const idOf = (texture: Texture) => {
    let id = textureIds.get(texture);
    if (id === undefined) textureIds.set(texture, (id = textureIds.size));
    return id;
  };
  const fileOf = async (texture: Texture | null): Promise<TextureFile | undefined> => {
    if (!texture) return undefined;
    const key = String(idOf(texture));
    if (!files.has(key)) {
      const image = await portableImage(texture);
      files.set(key, image ? add(`textures/${key}.${image.extension}`, image.data) : null);
    }
    return files.get(key) ?? undefined;
  };

  for (const part of scene.parts) {
    for (const { material } of part.primitives) {
      if (!material || entries.has(material)) continue;
      const name = uniqueName(identifier(material.getName(), 'Material'), used);
      const metallicFactor = material.getMetallicFactor();
      const roughnessFactor = material.getRoughnessFactor();
      const mrSource = material.getMetallicRoughnessTexture();
      const metallicRoughnessTexture = await fileOf(mrSource);
      let metallic = metallicFactor;
      let roughness = roughnessFactor;
      let roughnessTexture: TextureFile | undefined;
      let metallicTexture: TextureFile | undefined;
      if (mrSource && !metallicRoughnessTexture) {
        metallic = 0;
        roughness = roughnessFactor * DROPPED_ROUGHNESS_SHARE;
      } else if (mrSource && metallicRoughnessTexture) {
        const id = idOf(mrSource);
        if (options.splitMetallicRoughness) {
          // The factors are baked into the split images: materials sharing the texture with other factors get their own.
          const key = `${id}_${num(roughnessFactor)}_${num(metallicFactor)}`;
          let split = splits.get(key);
          if (!split) {
            const images = await splitMetallicRoughness(
              metallicRoughnessTexture.data,
              roughnessFactor,
              metallicFactor,
            );
            const index = splits.size;
            split = {
              roughness: add(`textures/${id}_roughness_${index}.png`, images.roughness),
              metallic: add(`textures/${id}_metallic_${index}.png`, images.metallic),
              meanRoughness: images.meanRoughness,
              meanMetallic: images.meanMetallic,
            };
            splits.set(key, split);
          }
          roughnessTexture = split.roughness;
          metallicTexture = split.metallic;
          roughness = split.meanRoughness;
          metallic = split.meanMetallic;
        } else {
          const means = await metallicRoughnessMeans(metallicRoughnessTexture.data);
          roughness = means.roughness * roughnessFactor;
          metallic = means.metallic * metallicFactor;
        }
      }
      const ior = material.getExtension<IOR>('KHR_materials_ior');
      entries.set(material, {
        name,
        baseColor: material.getBaseColorFactor() as [number, number, number, number],
        metallic,
        roughness,
        metallicFactor,
        roughnessFactor,
        ior: ior ? ior.getIOR() : 1.5,
        blend: material.getAlphaMode() === 'BLEND',
        doubleSided: material.getDoubleSided(),
        baseColorTexture: await fileOf(material.getBaseColorTexture()),
        normalTexture: await fileOf(material.getNormalTexture()),
        normalScale: material.getNormalScale(),
        metallicRoughnessTexture,
        roughnessTexture,
        metallicTexture,
      });
    }
  }
  // Only the files a material names: the packed texture stays out of a package that carries its split images.
  const textures = new Set<TextureFile>();
  for (const entry of entries.values()) {
    const named = [entry.baseColorTexture, entry.normalTexture];
    if (options.splitMetallicRoughness) named.push(entry.roughnessTexture, entry.metallicTexture);
    else named.push(entry.metallicRoughnessTexture);
    for (const file of named) if (file) textures.add(file);
  }
  return { entries, textures: [...textures] };
}

/** A name reduced to letters, digits and `_`, not starting with a digit: valid in MTL, USD paths and XML. */
export function identifier(name: string, fallback: string): string {
  const cleaned = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
  if (!cleaned) return fallback;
  return /^[0-9]/.test(cleaned) ? `_${cleaned}` : cleaned;
}

/** `name`, or `name_2`, `name_3`… when taken; records the result as taken. */
export function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  for (let n = 2; used.has(candidate); n++) candidate = `${name}_${n}`;
  used.add(candidate);
  return candidate;
}

/** A linear colour channel 0–1 as sRGB 0–1 (display colours: 3MF, hex swatches). */
export function linearToSrgb(value: number): number {
  const c = Math.min(Math.max(value, 0), 1);
  return c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055;
}

/** A number written compactly with seven significant digits (float precision), never in a form parsers refuse. */
export function num(value: number): string {
  if (!Number.isFinite(value)) return '0';
  return String(Number(value.toPrecision(7)));
}
