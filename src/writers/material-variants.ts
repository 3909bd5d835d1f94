import type { Document, Material as GltfMaterial } from '@gltf-transform/core';
import {
  KHRMaterialsVariants,
  type Mapping,
  type MappingList,
  type Variant,
} from '@gltf-transform/extensions';
import { listMeshNodes } from '../gltf/measure-geometry.ts';
import {
  createPartPainter,
  drawnDoubleSided,
  type BoundMaterial,
  type PartPainter,
} from './bound-material.ts';

/** One `KHR_materials_variants` variant: its name and the material it gives each bound `group_id`. */
export interface MaterialVariant {
  name: string;
  bound: ReadonlyArray<readonly [string, BoundMaterial]>;
}

/** A variant as written: its place in the list, its glTF-Transform property and its bindings. */
interface PaintingVariant {
  index: number;
  variant: Variant;
  bound: Map<string, BoundMaterial>;
}

/**
 * Adds each variant to the document as a `KHR_materials_variants` variant whose mappings give every part it binds
 * that material, made as a bound material is; a part a variant does not bind keeps the material it has (the
 * default). A part some variant paints also maps the other variants to its default material: the extension says a
 * primitive no mapping names is drawn with its default, but viewers switching from one variant straight to another
 * (model-viewer's `variantName`) leave such a part in the last variant's material. Variants that give a primitive
 * the same material share one mapping, as the extension asks. Pass the painter of the default repaint so the two
 * share materials. Returns how many parts some variant repaints.
 */
export function applyMaterialVariants(
  document: Document,
  variants: readonly MaterialVariant[],
  painter: PartPainter = createPartPainter(document),
): number {
  if (variants.length === 0) return 0;
  const extension = document.createExtension(KHRMaterialsVariants);
  const made: PaintingVariant[] = variants.map((variant, index) => ({
    index,
    variant: extension.createVariant(variant.name),
    bound: new Map(variant.bound),
  }));
  // Parts painted alike share one mapping list: one per distinct set of variant materials, not one per part.
  const lists = new Map<string, MappingList>();
  const defaultKeys = new Map<GltfMaterial | null, number>();
  let painted = 0;
  for (const { node, mesh } of listMeshNodes(document)) {
    const groupId = node.getExtras().group_id;
    if (typeof groupId !== 'string') continue;
    const painting = made.filter(({ bound }) => bound.has(groupId));
    if (painting.length === 0) continue;
    const unpainting = made.filter(({ bound }) => !bound.has(groupId)).map(({ variant }) => variant);
    for (const primitive of painter.ownPrimitives(node, mesh)) {
      const doubleSided = drawnDoubleSided(primitive);
      const fallback = primitive.getMaterial();
      if (!defaultKeys.has(fallback)) defaultKeys.set(fallback, defaultKeys.size);
      const key = `${doubleSided}:${defaultKeys.get(fallback)}:${painting.map(({ index, bound }) => `${index}=${bound.get(groupId)!.id}`).join(',')}`;
      let list = lists.get(key);
      if (!list) {
        list = mappingList(extension, painter, painting, groupId, doubleSided, fallback, unpainting);
        lists.set(key, list);
      }
      primitive.setExtension(KHRMaterialsVariants.EXTENSION_NAME, list);
    }
    painted++;
  }
  return painted;
}

/**
 * The mappings of a part: one per material, naming every variant that gives the part that material, the variants
 * that leave it alone naming its default material.
 */
function mappingList(
  extension: KHRMaterialsVariants,
  painter: PartPainter,
  painting: readonly PaintingVariant[],
  groupId: string,
  doubleSided: boolean,
  fallback: GltfMaterial | null,
  fallbacks: readonly Variant[],
): MappingList {
  const list = extension.createMappingList();
  const byMaterial = new Map<GltfMaterial, Mapping>();
  const choices: [GltfMaterial, Variant][] = [
    ...painting.map(({ variant, bound }): [GltfMaterial, Variant] => [
      painter.materialFor(bound.get(groupId)!, doubleSided),
      variant,
    ]),
    ...(fallback ? fallbacks.map((variant): [GltfMaterial, Variant] => [fallback, variant]) : []),
  ];
  for (const [material, variant] of choices) {
    let mapping = byMaterial.get(material);
    if (!mapping) {
      mapping = extension.createMapping().setMaterial(material);
      byMaterial.set(material, mapping);
      list.addMapping(mapping);
    }
    mapping.addVariant(variant);
  }
  return list;
}
