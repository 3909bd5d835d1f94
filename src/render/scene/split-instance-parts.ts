import type { Accessor, Document, Node, TypedArray, vec3, vec4 } from '@gltf-transform/core';
import type { InstancedMesh } from '@gltf-transform/extensions';
import { EXT_INSTANCE_FEATURES } from '../../gltf/ext-instance-features.ts';
import type { InstanceFeatures } from '../../gltf/ext-instance-features.ts';
import { disposeIfEmptied, placeSplitPart } from './part-homes.ts';
import type { PartHome } from './part-homes.ts';
import { tableParts } from './feature-group-ids.ts';

const INSTANCING = 'EXT_mesh_gpu_instancing';

/** The parts a node's instances draw: each instance's feature id and each feature's `group_id` and `name`. */
interface InstanceParts {
  features: ArrayLike<number>;
  groupIds: string[];
  names: string[];
}

/**
 * Turns the instanced parts of a level (a node drawing a mesh many parts share once per part,
 * `EXT_mesh_gpu_instancing`, each instance's part a feature id resolved by `EXT_instance_features`, as batch-parts.ts
 * writes them) back into a node per part drawing the shared mesh where its instance was, named after the part and
 * with its `extras.group_id`: where `homes` says it sat (part-homes.ts), else a new one under the instancing node.
 * With `only`, just the instances of those group ids become nodes and the others stay instances. Returns how many
 * part nodes it made.
 */
export function splitInstanceParts(
  document: Document,
  homes: Map<string, PartHome>,
  only?: ReadonlySet<string>,
): number {
  let made = 0;
  for (const node of document.getRoot().listNodes()) {
    const batch = node.getExtension<InstancedMesh>(INSTANCING);
    const parts = batch && instanceParts(node, batch);
    const mesh = node.getMesh();
    if (!batch || !parts || !mesh) continue;
    const count = parts.features.length;
    const left: number[] = [];
    for (let instance = 0; instance < count; instance++) {
      const groupId = parts.groupIds[Math.round(parts.features[instance]!)];
      if (groupId === undefined || (only && !only.has(groupId))) {
        left.push(instance);
        continue;
      }
      const name = parts.names[Math.round(parts.features[instance]!)] || groupId;
      const translation = element(batch.getAttribute('TRANSLATION'), instance, 3) as vec3 | null;
      const rotation = element(batch.getAttribute('ROTATION'), instance, 4) as vec4 | null;
      const scale = element(batch.getAttribute('SCALE'), instance, 3) as vec3 | null;
      const local = {
        translation: translation ?? undefined,
        rotation: rotation ?? undefined,
        scale: scale ?? undefined,
      };
      placeSplitPart(document, homes, node, { name, groupId, mesh, local });
      made++;
    }
    if (left.length === count) continue;
    const accessors = batch.listAttributes();
    if (left.length === 0) {
      node.setMesh(null);
      batch.dispose();
      node.getExtension(EXT_INSTANCE_FEATURES)?.dispose();
      disposeIfEmptied(node);
    } else {
      for (const semantic of batch.listSemantics()) {
        batch.setAttribute(semantic, keepElements(document, batch.getAttribute(semantic)!, left));
      }
    }
    const root = document.getRoot();
    for (const accessor of accessors) {
      if (accessor.listParents().every((parent) => parent === root)) accessor.dispose();
    }
  }
  if (made > 0) disposeUnusedExtensions(document);
  return made;
}

/** A node's instances' feature ids and the table they index; null when it carries none by attribute. */
function instanceParts(node: Node, batch: InstancedMesh): InstanceParts | null {
  const featureId = node.getExtension<InstanceFeatures>(EXT_INSTANCE_FEATURES)?.listFeatureIDs()[0];
  const attribute = featureId?.getAttribute();
  const table = featureId?.getPropertyTable();
  if (attribute === null || attribute === undefined || !table) return null;
  const features = batch.getAttribute(`_FEATURE_ID_${attribute}`)?.getArray();
  if (!features) return null;
  const { groupIds, names } = tableParts(table);
  return groupIds.length > 0 ? { features, groupIds, names } : null;
}

/** Element `index` of an instance attribute of `size` components, or null without the attribute. */
function element(accessor: Accessor | null, index: number, size: number): number[] | null {
  if (!accessor) return null;
  return accessor.getElement(index, new Array<number>(size).fill(0));
}

/** A copy of `accessor` holding only the elements at `indices`. */
function keepElements(document: Document, accessor: Accessor, indices: readonly number[]): Accessor {
  const source = accessor.getArray()!;
  const size = accessor.getElementSize();
  const values = new (source.constructor as new (length: number) => TypedArray)(indices.length * size);
  indices.forEach((index, at) => values.set(source.subarray(index * size, index * size + size), at * size));
  return document
    .createAccessor()
    .setType(accessor.getType())
    .setNormalized(accessor.getNormalized())
    .setArray(values)
    .setBuffer(accessor.getBuffer());
}

/** Disposes the instancing extensions once no node uses them. */
function disposeUnusedExtensions(document: Document): void {
  const root = document.getRoot();
  for (const name of [INSTANCING, EXT_INSTANCE_FEATURES]) {
    if (root.listNodes().some((node) => node.getExtension(name))) continue;
    for (const extension of root.listExtensionsUsed()) {
      if (extension.extensionName === name) extension.dispose();
    }
  }
}
