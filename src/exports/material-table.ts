import type { Material } from '@gltf-transform/core';
import type { IOR } from '@gltf-transform/extensions';
import type { FlatScene } from './flatten-parts.ts';

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
  metallic: number;
  roughness: number;
  /** Index of refraction (KHR_materials_ior, else glTF's 1.5). */
  ior: number;
  /** Whether alpha blends (BLEND) rather than being ignored (OPAQUE) or cut (MASK). */
  blend: boolean;
  doubleSided: boolean;
  /** The base colour texture, when it is PNG or JPEG (the image types every target format takes). */
  baseColorTexture?: TextureFile;
}

/** Materials by the glTF material they come from, with the textures they use. */
export interface MaterialTable {
  entries: Map<Material, MaterialEntry>;
  textures: TextureFile[];
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg' };

/** Reads every material the flattened scene uses, naming each uniquely and collecting its texture files. */
export function materialTable(scene: FlatScene): MaterialTable {
  const entries = new Map<Material, MaterialEntry>();
  const textures = new Map<object, TextureFile>();
  const used = new Set<string>();
  for (const part of scene.parts) {
    for (const { material } of part.primitives) {
      if (!material || entries.has(material)) continue;
      const name = uniqueName(identifier(material.getName(), 'Material'), used);
      const texture = material.getBaseColorTexture();
      let file: TextureFile | undefined;
      const image = texture?.getImage();
      const extension = EXTENSIONS[texture?.getMimeType() ?? ''];
      if (texture && image && extension) {
        file = textures.get(texture);
        if (!file) {
          file = { path: `textures/${textures.size}.${extension}`, data: image };
          textures.set(texture, file);
        }
      }
      const ior = material.getExtension<IOR>('KHR_materials_ior');
      entries.set(material, {
        name,
        baseColor: material.getBaseColorFactor() as [number, number, number, number],
        metallic: material.getMetallicFactor(),
        roughness: material.getRoughnessFactor(),
        ior: ior ? ior.getIOR() : 1.5,
        blend: material.getAlphaMode() === 'BLEND',
        doubleSided: material.getDoubleSided(),
        baseColorTexture: file,
      });
    }
  }
  return { entries, textures: [...textures.values()] };
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
