// No imports: the web viewer bundles this file too, so its form starts from the service's own defaults.

/** Values a new material takes for omitted fields: white, opaque, with no shine or specular colour. */
export const MATERIAL_DEFAULTS = {
  diffuse_r: 255,
  diffuse_g: 255,
  diffuse_b: 255,
  alpha: 255,
  shininess: 0,
  specular_r: 0,
  specular_g: 0,
  specular_b: 0,
  ambient_r: 0,
  ambient_g: 0,
  ambient_b: 0,
  metallic: 0,
  roughness: 0.5,
  reflectance: 0.5,
} as const;
