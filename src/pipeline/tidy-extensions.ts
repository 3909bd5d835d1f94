import { ExtensionProperty } from '@gltf-transform/core';
import type { Document, Material } from '@gltf-transform/core';
import type {
  Anisotropy,
  Clearcoat,
  Dispersion,
  EmissiveStrength,
  IOR,
  Iridescence,
  Sheen,
  Specular,
  Transmission,
  Volume,
} from '@gltf-transform/extensions';

/**
 * Material extensions that change nothing at these values. IOR 1.0 is also dropped: it is what assimp
 * writes for every source without an index of refraction, and it switches specular highlights off (no
 * real material has the IOR of vacuum), so the glTF default of 1.5 is the faithful reading.
 */
const NO_EFFECT: Record<string, (property: ExtensionProperty) => boolean> = {
  KHR_materials_ior: (p) => [1, 1.5].includes((p as IOR).getIOR()),
  KHR_materials_volume: (p) =>
    (p as Volume).getThicknessFactor() === 0 && !(p as Volume).getThicknessTexture(),
  KHR_materials_transmission: (p) =>
    (p as Transmission).getTransmissionFactor() === 0 && !(p as Transmission).getTransmissionTexture(),
  KHR_materials_clearcoat: (p) => (p as Clearcoat).getClearcoatFactor() === 0,
  KHR_materials_sheen: (p) =>
    (p as Sheen).getSheenColorFactor().every((value) => value === 0) && !(p as Sheen).getSheenColorTexture(),
  KHR_materials_specular: (p) =>
    (p as Specular).getSpecularFactor() === 1 &&
    (p as Specular).getSpecularColorFactor().every((value) => value === 1) &&
    !(p as Specular).getSpecularTexture() &&
    !(p as Specular).getSpecularColorTexture(),
  KHR_materials_emissive_strength: (p) => (p as EmissiveStrength).getEmissiveStrength() === 1,
  KHR_materials_iridescence: (p) => (p as Iridescence).getIridescenceFactor() === 0,
  KHR_materials_dispersion: (p) => (p as Dispersion).getDispersion() === 0,
  KHR_materials_anisotropy: (p) => (p as Anisotropy).getAnisotropyStrength() === 0,
};

/** Extensions used through a texture's image type rather than through a property. */
const IMAGE_TYPES: Record<string, string> = {
  EXT_texture_webp: 'image/webp',
  EXT_texture_avif: 'image/avif',
  KHR_texture_basisu: 'image/ktx2',
};

/** Extensions that change how data is stored rather than adding properties: the writer decides on them. */
const WITHOUT_PROPERTIES = new Set([
  'KHR_mesh_quantization',
  'EXT_meshopt_compression',
  'KHR_draco_mesh_compression',
]);

/**
 * Drops material extensions that hold only their no-effect values, then undeclares every extension
 * that no property of the document uses any more (assimp declares `KHR_materials_volume` on every
 * model). Returns the names of the extensions undeclared.
 */
export function tidyExtensions(document: Document): string[] {
  const root = document.getRoot();
  for (const material of root.listMaterials()) dropNoEffectExtensions(material);

  const used = new Set<string>();
  for (const edge of document.getGraph().listEdges()) {
    const child = edge.getChild();
    if (child instanceof ExtensionProperty && !edge.getParent().isDisposed()) used.add(child.extensionName);
  }
  for (const texture of root.listTextures()) {
    for (const [name, type] of Object.entries(IMAGE_TYPES))
      if (texture.getMimeType() === type) used.add(name);
  }
  const removed: string[] = [];
  for (const extension of root.listExtensionsUsed()) {
    if (!used.has(extension.extensionName) && !WITHOUT_PROPERTIES.has(extension.extensionName)) {
      removed.push(extension.extensionName);
      extension.dispose();
    }
  }
  return removed;
}

function dropNoEffectExtensions(material: Material): void {
  for (const property of material.listExtensions()) {
    if (NO_EFFECT[property.extensionName]?.(property)) {
      material.setExtension(property.extensionName, null);
      property.dispose();
    }
  }
}
