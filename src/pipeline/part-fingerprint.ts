// A part's fingerprint (types.ts PartFingerprint): four hashes that let two versions of a model say whether a part
// kept its shape, its place, its properties and its materials.
import { createHash, hash } from 'node:crypto';
import type { Material, Mesh, Texture, mat4 } from '@gltf-transform/core';
import { GEOMETRY_TOLERANCE, hashMeshGeometry } from './geometry-hash.ts';
import type { MeshGeometry } from './geometry-hash.ts';
import type { PartProperties } from './part-properties.ts';
import type { PartFingerprint } from './types.ts';

/**
 * Step of the entries of the placement's rotation. Its translation snaps to {@link GEOMETRY_TOLERANCE}, so a part is
 * moved when its offset moves by more than 0.1 mm.
 */
export const ROTATION_TOLERANCE = 1e-6;

/**
 * Hashes computed once per conversion for what several parts share: a mesh (at one scale), a texture, a set of
 * materials (by their descriptions).
 */
export interface FingerprintCache {
  meshes: Map<Mesh, Map<number, MeshGeometry>>;
  textures: Map<Texture, string>;
  materials: Map<string, string>;
  /** Each material's description (describeMaterial), read once however many parts draw with it. */
  descriptions: Map<Material, string>;
  /** The material hash of a mesh of one primitive, by its material: most parts, told without a list to sort. */
  single: Map<Material | null, string>;
}

/** An empty {@link FingerprintCache}. */
export function createFingerprintCache(): FingerprintCache {
  return {
    meshes: new Map(),
    textures: new Map(),
    materials: new Map(),
    descriptions: new Map(),
    single: new Map(),
  };
}

/** The hash of no properties, which most parts of most formats have: computed once. */
const NO_PROPERTIES = hashJson([]);

/**
 * The fingerprint of the part a node draws with `mesh`, placed by `world`, its world matrix. The geometry is hashed
 * in the mesh's own frame, less its low corner (the offset), so a part moved by its node, or by a placement an
 * importer baked into the vertices, keeps its geometry hash and changes its transform: where the world matrix takes
 * the offset, and its rotation, quantized. A scale is the geometry's (its size in the scene), not the transform's.
 */
export function fingerprintPart(
  world: mat4,
  mesh: Mesh,
  properties: PartProperties,
  cache: FingerprintCache,
): PartFingerprint {
  const scale = Math.cbrt(Math.abs(determinant(world)));
  const byScale = cache.meshes.get(mesh) ?? new Map<number, MeshGeometry>();
  cache.meshes.set(mesh, byScale);
  const geometry = byScale.get(scale) ?? hashMeshGeometry(mesh, scale);
  byScale.set(scale, geometry);
  return {
    geometry: geometry.hash,
    transform: hashTransform(world, geometry.offset, scale),
    properties: isEmpty(properties) ? NO_PROPERTIES : hashJson(canonicalProperties(properties)),
    material: materialHash(mesh, cache),
  };
}

/** The hash of the materials a mesh's primitives draw with, in no order; once per set of materials met. */
function materialHash(mesh: Mesh, cache: FingerprintCache): string {
  const primitives = mesh.listPrimitives();
  if (primitives.length === 1) {
    const material = primitives[0].getMaterial();
    let digest = cache.single.get(material);
    if (digest === undefined)
      cache.single.set(material, (digest = hashJson([describeMaterial(material, cache)])));
    return digest;
  }
  const descriptions = primitives.map((primitive) => describeMaterial(primitive.getMaterial(), cache)).sort();
  const key = JSON.stringify(descriptions);
  let digest = cache.materials.get(key);
  if (digest === undefined) cache.materials.set(key, (digest = hashJson(descriptions)));
  return digest;
}

function isEmpty(properties: PartProperties): boolean {
  for (const set in properties) if (Object.hasOwn(properties, set)) return false;
  return true;
}

/** The placement of the offset: where it lands (on the tolerance grid) and the rotation (the matrix less its scale). */
function hashTransform(world: mat4, offset: [number, number, number], scale: number): string {
  const [x, y, z] = offset;
  const origin = [0, 1, 2].map(
    (row) => world[row] * x + world[4 + row] * y + world[8 + row] * z + world[12 + row],
  );
  const s = scale > 0 && Number.isFinite(scale) ? scale : 1;
  const rotation = [0, 1, 2, 4, 5, 6, 8, 9, 10].map((i) => snap(world[i] / s, ROTATION_TOLERANCE));
  // The scale is left out: the geometry hash is of the shape at its size in the scene already.
  return hashJson([origin.map((value) => snap(value, GEOMETRY_TOLERANCE)), rotation]);
}

function snap(value: number, step: number): number {
  // `+ 0` turns -0 into 0, which JSON would write alike anyway, and keeps the intent plain.
  return Math.round(value / step) + 0;
}

function determinant(m: mat4): number {
  return (
    m[0] * (m[5] * m[10] - m[6] * m[9]) -
    m[4] * (m[1] * m[10] - m[2] * m[9]) +
    m[8] * (m[1] * m[6] - m[2] * m[5])
  );
}

/** Sets and properties sorted by name: the order a file lists them in is no change. */
function canonicalProperties(properties: PartProperties): unknown {
  return Object.keys(properties)
    .sort()
    .map((set) => [
      set,
      Object.keys(properties[set])
        .sort()
        .map((name) => [name, properties[set][name]]),
    ]);
}

/**
 * What a material looks like, as canonical JSON: its name, factors (rounded to 1e-6), modes and the content hash of
 * each texture. Material extensions (clearcoat, transmission, …) are not looked at.
 */
function describeMaterial(material: Material | null, cache: FingerprintCache): string {
  if (!material) return 'null';
  let description = cache.descriptions.get(material);
  if (description === undefined)
    cache.descriptions.set(material, (description = readMaterial(material, cache)));
  return description;
}

function readMaterial(material: Material, cache: FingerprintCache): string {
  const round = (values: readonly number[]) => values.map((value) => snap(value, 1e-6));
  const texture = (slot: Texture | null) => (slot ? textureHash(slot, cache) : null);
  return JSON.stringify([
    material.getName(),
    round(material.getBaseColorFactor()),
    round(material.getEmissiveFactor()),
    round([material.getMetallicFactor(), material.getRoughnessFactor(), material.getAlphaCutoff()]),
    material.getAlphaMode(),
    material.getDoubleSided(),
    texture(material.getBaseColorTexture()),
    texture(material.getNormalTexture()),
    texture(material.getMetallicRoughnessTexture()),
    texture(material.getOcclusionTexture()),
    texture(material.getEmissiveTexture()),
  ]);
}

function textureHash(texture: Texture, cache: FingerprintCache): string {
  let digest = cache.textures.get(texture);
  if (digest === undefined) {
    const image = texture.getImage();
    digest = image ? createHash('sha256').update(image).digest('hex').slice(0, 32) : texture.getURI();
    cache.textures.set(texture, digest);
  }
  return digest;
}

/** 32 hex digits of the SHA-256 of a value's JSON (one-shot: a hash object a part cost more than the digest). */
function hashJson(value: unknown): string {
  return hash('sha256', JSON.stringify(value), 'hex').slice(0, 32);
}
