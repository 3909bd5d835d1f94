import { PropertyType } from '@gltf-transform/core';
import type { Accessor, Document, Mesh, Primitive, TypedArray } from '@gltf-transform/core';
import { featureParts } from './feature-group-ids.ts';
import type { FeatureParts } from './feature-group-ids.ts';
import { disposeIfEmptied, dropPartLists, partHomes, placeSplitPart } from './part-homes.ts';
import { splitInstanceParts } from './split-instance-parts.ts';
import { EXT_INSTANCE_FEATURES } from '../../gltf/ext-instance-features.ts';

/** glTF's TRIANGLES draw mode; a batched level merges nothing else. */
const TRIANGLES = 4;

/** The extensions a batched level carries its parts in, gone once every part is a node again. */
const FEATURE_EXTENSIONS = ['EXT_mesh_features', 'EXT_structural_metadata'];

/**
 * Turns a level whose parts are batched (primitives whose `_FEATURE_ID_0` resolves to a `group_id` through
 * `EXT_structural_metadata`, as batch-parts.ts writes them, and instances of shared meshes: split-instance-parts.ts)
 * back into a node per part, as levels of few parts are written: each part a node named after it with its
 * `extras.group_id`, with a mesh of only its own vertices (every attribute but the feature ids, types kept) and its
 * primitives' materials. A part the level says sat in its tree (an IFC element in its storey: listed on the storey,
 * or a node kept for it) is put back there, so the tree is the importer's again and no `group_id` is written twice;
 * any other goes under the batched primitives' node.
 * Exports and the renderer then find each part as they always have. With `only`, just the parts of those group
 * ids become nodes and the other triangles stay on the batched node, in one primitive per batched primitive without
 * feature ids (a renderer painting a few bound parts of 100,000 need not make a node of each). Returns how many part
 * nodes it made; a level without feature ids is left as it is.
 */
export function splitFeatureParts(document: Document, only?: ReadonlySet<string>): number {
  const root = document.getRoot();
  // A mesh many parts share is drawn as instances, a part each: those parts become nodes too.
  const homes = partHomes(document);
  let made = splitInstanceParts(document, homes, only);
  const emptied = new Set<Accessor>();
  for (const node of root.listNodes()) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    const batched = mesh
      .listPrimitives()
      .map((primitive) => ({ primitive, parts: featureParts(primitive) }))
      .filter((entry): entry is { primitive: Primitive; parts: FeatureParts } => entry.parts !== null);
    if (batched.length === 0) continue;
    const split = batched
      .filter(({ primitive }) => primitive.getMode() === TRIANGLES)
      .map(({ primitive, parts }) => ({ primitive, parts, byFeature: trianglesByFeature(primitive, parts) }));
    // Part nodes in feature order, which is the order the parts are listed in.
    const features = [...new Set(split.flatMap(({ byFeature }) => [...byFeature.keys()]))].sort(
      (a, b) => a - b,
    );
    const named = (parts: FeatureParts, feature: number) => only!.has(parts.groupIds[feature] ?? '');
    if (only && !split.some(({ parts, byFeature }) => [...byFeature.keys()].some((f) => named(parts, f))))
      continue;
    const partMeshes = new Map<string, Mesh>();
    const rest = new Map<Primitive, number[]>();
    for (const feature of features) {
      for (const { primitive, parts, byFeature } of split) {
        const triangles = byFeature.get(feature);
        const groupId = parts.groupIds[feature];
        if (!triangles || groupId === undefined) continue;
        if (only && !named(parts, feature)) {
          const kept = rest.get(primitive);
          if (kept) for (const vertex of triangles) kept.push(vertex);
          else rest.set(primitive, triangles);
          continue;
        }
        let partMesh = partMeshes.get(groupId);
        if (!partMesh) {
          const name = parts.names[feature] || groupId;
          partMesh = document.createMesh(name);
          partMeshes.set(groupId, partMesh);
          placeSplitPart(document, homes, node, { name, groupId, mesh: partMesh, local: null });
          made++;
        }
        partMesh.addPrimitive(copyTriangles(document, primitive, triangles));
      }
    }
    for (const [primitive, triangles] of rest)
      mesh.addPrimitive(copyTriangles(document, primitive, triangles));
    for (const { primitive } of batched) {
      for (const accessor of [primitive.getIndices(), ...primitive.listAttributes()]) {
        if (accessor) emptied.add(accessor);
      }
      primitive.dispose();
    }
    if (mesh.listPrimitives().length === 0) {
      node.setMesh(null);
      if (!mesh.listParents().some((parent) => parent.propertyType === PropertyType.NODE)) mesh.dispose();
      disposeIfEmptied(node);
    }
  }
  if (made === 0) return 0;
  // Every part has its node again; with `only`, the lists still say where the others sat.
  if (!only) dropPartLists(document);
  for (const accessor of emptied) {
    if (accessor.listParents().every((parent) => parent === root)) accessor.dispose();
  }
  const stillFeatured =
    root
      .listMeshes()
      .some((mesh) =>
        mesh.listPrimitives().some((primitive) => primitive.getExtension('EXT_mesh_features')),
      ) || root.listNodes().some((node) => node.getExtension(EXT_INSTANCE_FEATURES));
  if (!stillFeatured) {
    for (const extension of root.listExtensionsUsed()) {
      if (FEATURE_EXTENSIONS.includes(extension.extensionName)) extension.dispose();
    }
  }
  return made;
}

/** A primitive's triangles (vertex indices, three a triangle) by the feature id of their first vertex. */
function trianglesByFeature(primitive: Primitive, parts: FeatureParts): Map<number, number[]> {
  const vertexCount = primitive.getAttribute('POSITION')?.getCount() ?? 0;
  const indices = primitive.getIndices()?.getArray() ?? null;
  const count = indices ? indices.length : vertexCount;
  const byFeature = new Map<number, number[]>();
  for (let at = 0; at + 2 < count; at += 3) {
    const a = indices ? indices[at]! : at;
    const b = indices ? indices[at + 1]! : at + 1;
    const c = indices ? indices[at + 2]! : at + 2;
    if (a >= vertexCount || b >= vertexCount || c >= vertexCount) continue;
    const feature = Math.round(parts.vertexFeatures[a]!);
    let list = byFeature.get(feature);
    if (!list) byFeature.set(feature, (list = []));
    list.push(a, b, c);
  }
  return byFeature;
}

/** A primitive drawing the given triangles of `source`, with only the vertices they use, in their own types. */
function copyTriangles(document: Document, source: Primitive, triangles: number[]): Primitive {
  const remap = new Map<number, number>();
  const order: number[] = [];
  const indices = new Uint32Array(triangles.length);
  triangles.forEach((vertex, at) => {
    let next = remap.get(vertex);
    if (next === undefined) {
      remap.set(vertex, (next = order.length));
      order.push(vertex);
    }
    indices[at] = next;
  });
  const buffer = source.getAttribute('POSITION')?.getBuffer() ?? null;
  const primitive = document
    .createPrimitive()
    .setMaterial(source.getMaterial())
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer));
  for (const semantic of source.listSemantics()) {
    if (semantic.startsWith('_FEATURE_ID_')) continue;
    const accessor = source.getAttribute(semantic)!;
    const array = accessor.getArray();
    if (!array) continue;
    const size = accessor.getElementSize();
    const values = new (array.constructor as new (length: number) => TypedArray)(order.length * size);
    order.forEach((vertex, to) => values.set(array.subarray(vertex * size, vertex * size + size), to * size));
    primitive.setAttribute(
      semantic,
      document
        .createAccessor()
        .setType(accessor.getType())
        .setNormalized(accessor.getNormalized())
        .setArray(values)
        .setBuffer(buffer),
    );
  }
  return primitive;
}
