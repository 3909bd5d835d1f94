import type { Document, Material as GltfMaterial, Mesh, Node, Primitive } from '@gltf-transform/core';
import { KHRMaterialsIOR, KHRMaterialsSpecular } from '@gltf-transform/extensions';
import { listMeshNodes } from '../gltf/measure-geometry.ts';

/** The fields of a material-service record an export uses (structured-cloneable, so it crosses to a worker). */
export interface BoundMaterial {
  id: number;
  name: string;
  diffuse_r: number;
  diffuse_g: number;
  diffuse_b: number;
  alpha: number;
  specular_r: number;
  specular_g: number;
  specular_b: number;
  metallic: number;
  roughness: number;
  reflectance: number;
}

/** glTF's index of refraction for a dielectric without the extension (F0 = 4 %). */
const DEFAULT_IOR = 1.5;

/** An sRGB channel 0–255 (how the service and the viewer read colours) as glTF's linear factor. */
export function srgbToLinear(channel: number): number {
  const c = Math.min(Math.max(channel / 255, 0), 1);
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/**
 * Index of refraction for a reflectance 0–1, read as Filament's: F0 = 0.16 × reflectance², so 0.5 gives
 * glTF's default 4 % (IOR 1.5) and 1 gives 16 % (IOR ≈ 2.33).
 */
export function reflectanceToIor(reflectance: number): number {
  const r = Math.min(Math.max(reflectance, 0), 1);
  const sqrtF0 = 0.4 * r;
  return (1 + sqrtF0) / (1 - sqrtF0);
}

/** Makes the glTF materials of bound records and the meshes parts are repainted on, shared by every repaint. */
export interface PartPainter {
  /** The glTF material of a record for a surface drawn single- or double-sided, made once per pair. */
  materialFor(record: BoundMaterial, doubleSided: boolean): GltfMaterial;
  /** The primitives of the node's own mesh: a mesh that other nodes place too is copied first. */
  ownPrimitives(node: Node, mesh: Mesh): Primitive[];
}

/** A painter for one document; pass the same one to each repaint so they share materials and mesh copies. */
export function createPartPainter(document: Document): PartPainter {
  const made = new Map<string, GltfMaterial>();
  const placements = countPlacements(document);
  return {
    materialFor(record, doubleSided) {
      const key = `${record.id}:${doubleSided}`;
      let material = made.get(key);
      if (!material) {
        material = toGltfMaterial(document, record).setDoubleSided(doubleSided);
        made.set(key, material);
      }
      return material;
    },
    ownPrimitives(node, mesh) {
      return ownMesh(document, node, mesh, placements).listPrimitives();
    },
  };
}

/** Whether a primitive's surface is drawn from both sides, as the part's own material says. */
export function drawnDoubleSided(primitive: Primitive): boolean {
  // Kept from the part's own material: a surface modelled single-sided needs both faces drawn either way.
  return primitive.getMaterial()?.getDoubleSided() ?? false;
}

/**
 * Gives every part whose `group_id` is bound a glTF material made from the bound record: diffuse → base colour
 * (sRGB to linear), alpha → opacity with BLEND, metallic, roughness; reflectance → KHR_materials_ior and a
 * non-black specular colour → KHR_materials_specular, each only when it differs from glTF's default. Parts without
 * a binding keep their own material. A mesh that other nodes share is copied first so only the bound part changes.
 * Returns how many parts were repainted.
 */
export function applyBoundMaterials(
  document: Document,
  bound: ReadonlyMap<string, BoundMaterial>,
  painter: PartPainter = createPartPainter(document),
): number {
  if (bound.size === 0) return 0;
  let painted = 0;
  for (const { node, mesh } of listMeshNodes(document)) {
    const groupId = node.getExtras().group_id;
    const record = typeof groupId === 'string' ? bound.get(groupId) : undefined;
    if (!record) continue;
    for (const primitive of painter.ownPrimitives(node, mesh)) {
      primitive.setMaterial(painter.materialFor(record, drawnDoubleSided(primitive)));
    }
    painted++;
  }
  return painted;
}

/** How many nodes place each mesh, counted once: asking each node's mesh for its parents is quadratic in copies. */
function countPlacements(document: Document): Map<Mesh, number> {
  const counts = new Map<Mesh, number>();
  for (const node of document.getRoot().listNodes()) {
    const mesh = node.getMesh();
    if (mesh) counts.set(mesh, (counts.get(mesh) ?? 0) + 1);
  }
  return counts;
}

/** The node's mesh, copied when another node places it too (the last node to ask keeps the original). */
function ownMesh(document: Document, node: Node, mesh: Mesh, placements: Map<Mesh, number>): Mesh {
  const count = placements.get(mesh) ?? 1;
  if (count <= 1) return mesh;
  placements.set(mesh, count - 1);
  const copy = document.createMesh(mesh.getName()).setExtras({ ...mesh.getExtras() });
  for (const primitive of mesh.listPrimitives()) copy.addPrimitive(primitive.clone());
  node.setMesh(copy);
  return copy;
}

function toGltfMaterial(document: Document, record: BoundMaterial): GltfMaterial {
  const alpha = Math.min(Math.max(record.alpha / 255, 0), 1);
  const material = document
    .createMaterial(record.name)
    .setBaseColorFactor([
      srgbToLinear(record.diffuse_r),
      srgbToLinear(record.diffuse_g),
      srgbToLinear(record.diffuse_b),
      alpha,
    ])
    .setAlphaMode(alpha < 1 ? 'BLEND' : 'OPAQUE')
    .setMetallicFactor(Math.min(Math.max(record.metallic, 0), 1))
    .setRoughnessFactor(Math.min(Math.max(record.roughness, 0), 1))
    .setExtras({ material_id: record.id });
  const ior = reflectanceToIor(record.reflectance);
  if (Math.abs(ior - DEFAULT_IOR) > 1e-6) {
    const extension = document.createExtension(KHRMaterialsIOR);
    material.setExtension(KHRMaterialsIOR.EXTENSION_NAME, extension.createIOR().setIOR(ior));
  }
  // The service stores black when no specular colour was given; the viewer then leaves specular alone too.
  if (record.specular_r > 0 || record.specular_g > 0 || record.specular_b > 0) {
    const extension = document.createExtension(KHRMaterialsSpecular);
    const specular = extension
      .createSpecular()
      .setSpecularColorFactor([
        srgbToLinear(record.specular_r),
        srgbToLinear(record.specular_g),
        srgbToLinear(record.specular_b),
      ]);
    material.setExtension(KHRMaterialsSpecular.EXTENSION_NAME, specular);
  }
  return material;
}
