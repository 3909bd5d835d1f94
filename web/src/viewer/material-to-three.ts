/** Turns a material record of the material service into a three.js material. */
import { Color, MeshPhysicalMaterial, SRGBColorSpace } from 'three';
import type { Material } from '../api/types.ts';

/**
 * Share of the ambient colour shown as self-illumination. The record's ambient term comes from
 * Phong-style shading, where it lifts the sides the lights miss; a small emissive share does the same.
 */
const AMBIENT_SHARE = 0.2;

function srgb(r: number, g: number, b: number): Color {
  return new Color().setRGB(r / 255, g / 255, b / 255, SRGBColorSpace);
}

/**
 * Builds a physically based material: diffuse → base colour, alpha → opacity, metallic, roughness
 * and reflectance map one to one. Specular tints reflections only when not black, because black is
 * what the service stores when no specular colour was given. Shininess is the Phong counterpart of
 * roughness and is left out, since roughness is always present.
 */
export function materialToThree(material: Material): MeshPhysicalMaterial {
  const opacity = Math.min(Math.max(material.alpha / 255, 0), 1);
  const result = new MeshPhysicalMaterial({
    name: material.name,
    color: srgb(material.diffuse_r, material.diffuse_g, material.diffuse_b),
    opacity,
    transparent: opacity < 1,
    depthWrite: opacity >= 1,
    metalness: clamp01(material.metallic),
    roughness: clamp01(material.roughness),
    reflectivity: clamp01(material.reflectance),
    emissive: srgb(material.ambient_r, material.ambient_g, material.ambient_b).multiplyScalar(AMBIENT_SHARE),
  });
  if (material.specular_r > 0 || material.specular_g > 0 || material.specular_b > 0) {
    result.specularColor = srgb(material.specular_r, material.specular_g, material.specular_b);
  }
  result.userData.materialId = material.id;
  return result;
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0;
}
