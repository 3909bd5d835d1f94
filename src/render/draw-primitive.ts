import type { DecodedTexture } from './scene/decode-texture.ts';

/** Drawn in the first pass and writes depth. */
export const ALPHA_OPAQUE = 0;
/** Like opaque, but fragments below the cutoff are discarded. */
export const ALPHA_MASK = 1;
/** Blended over the opaque image after it, without writing depth. */
export const ALPHA_BLEND = 2;

/**
 * One glTF primitive baked into world space and flat typed arrays, with everything the rasterizer
 * and the shader need resolved up front, so the hot loops never touch glTF-Transform objects.
 */
export interface DrawPrimitive {
  /** World-space xyz per vertex. */
  positions: Float32Array;
  /** World-space normals per vertex (normalized when shading), or `null` to shade each triangle flat from its positions. */
  normals: Float32Array | null;
  /** uv per vertex of the base-colour texture's set, texture transform applied; `null` without texture. */
  uvs: Float32Array | null;
  /** Linear RGBA per vertex from `COLOR_0`, or `null`. */
  colors: Float32Array | null;
  /** Triangle list; winding already flipped for mirroring transforms. */
  indices: Uint32Array;
  /** Linear base-colour factor RGBA. */
  baseColor: Float32Array;
  /** Linear emissive factor RGB. */
  emissive: Float32Array;
  /** Decoded base-colour texture, or `null`. */
  texture: DecodedTexture | null;
  /** Sampler wrap mode along u. */
  wrapS: number;
  /** Sampler wrap mode along v. */
  wrapT: number;
  /** uv per vertex for the emissive texture (its own set and transform), or `null`. */
  emissiveUvs: Float32Array | null;
  /** Decoded emissive texture, multiplied by the emissive factor; `null` uses the factor alone. */
  emissiveTexture: DecodedTexture | null;
  /** Emissive sampler wrap mode along u. */
  emissiveWrapS: number;
  /** Emissive sampler wrap mode along v. */
  emissiveWrapT: number;
  /** {@link ALPHA_OPAQUE}, {@link ALPHA_MASK} or {@link ALPHA_BLEND}. */
  alphaMode: number;
  /** Alpha below which MASK fragments are discarded. */
  alphaCutoff: number;
  /** Whether back faces are drawn even when back-face culling is on. */
  doubleSided: boolean;
  /** KHR_materials_unlit: base colour shown as is. */
  unlit: boolean;
  /** Blinn-Phong exponent derived from the material's roughness. */
  shininess: number;
  /** Weight of the specular highlight, 0–1. */
  specular: number;
  /** World-space centre of the primitive, to sort blended primitives back to front. */
  center: [number, number, number];
  /** A point primitive (glTF POINTS): `indices` is empty and each vertex is drawn as a splat in its own colour. */
  points: boolean;
}
