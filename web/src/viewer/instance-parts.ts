/**
 * Gives each instance of a level's instanced parts its own mesh back. A level of many parts draws a mesh many parts
 * share as instances of one node (`EXT_mesh_gpu_instancing`), each instance's part a feature id
 * (`EXT_instance_features`, an instance attribute `_FEATURE_ID_n`) in the level's table of parts
 * (`EXT_structural_metadata`); GLTFLoader loads that node as one InstancedMesh. Here every instance becomes a mesh
 * of its own, placed where the instance was and tagged with its part's `group_id`, as a node per part would have
 * loaded: the tools pick, paint, hide and move parts, and the view draws the plain ones instanced again
 * (part-instances.ts).
 */
import { Matrix4, Mesh } from 'three';
import type { BufferAttribute, InstancedMesh, Object3D } from 'three';
import { partRowReader, type PartTable } from './part-table-reader.ts';

/** The node extension naming the instances' feature ids, as GLTFLoader keeps an extension it does not know. */
interface InstanceFeaturesDef {
  featureIds?: { attribute?: number; propertyTable?: number }[];
}

/**
 * Replaces every InstancedMesh of `scene` whose node says which part each instance is by one mesh per instance
 * (sharing the instanced geometry, without its instance attributes), under the same parent; answers them by part.
 */
export function expandInstancedParts(scene: Object3D): Map<string, Mesh[]> {
  const parts = new Map<string, Mesh[]>();
  const table = scene.userData.structuralMetadata as PartTable | undefined;
  if (!table) return parts;
  const nodes: Object3D[] = [];
  scene.traverse((object) => {
    if (featureIdOf(object)) nodes.push(object);
  });
  for (const node of nodes) {
    const { attribute, propertyTable } = featureIdOf(node)!;
    const instanced = (node as InstancedMesh).isInstancedMesh ? [node] : node.children;
    for (const mesh of instanced as InstancedMesh[]) {
      if (!mesh.isInstancedMesh || !mesh.parent) continue;
      const name = `_FEATURE_ID_${attribute}`;
      const features = (mesh.geometry.getAttribute(name) ??
        mesh.geometry.getAttribute(name.toLowerCase())) as BufferAttribute | undefined;
      if (!features) continue;
      // The loader gave this InstancedMesh a geometry of its own to hold the instance attributes.
      mesh.geometry.deleteAttribute(name);
      mesh.geometry.deleteAttribute(name.toLowerCase());
      const instance = new Matrix4();
      // GLTFLoader sets a node's position, rotation and scale, not its matrix.
      mesh.updateMatrix();
      let kept = 0;
      const rowOf = partRowReader(table, propertyTable);
      for (let at = 0; at < mesh.count; at++) {
        const row = rowOf(Math.round(features.getX(at)));
        mesh.getMatrixAt(at, instance);
        if (typeof row.group_id !== 'string') {
          // An instance of no part stays an instance.
          mesh.setMatrixAt(kept++, instance);
          continue;
        }
        const part = new Mesh(mesh.geometry, mesh.material);
        part.matrix.multiplyMatrices(mesh.matrix, instance);
        part.matrix.decompose(part.position, part.quaternion, part.scale);
        part.name = typeof row.name === 'string' ? row.name : row.group_id;
        part.userData.group_id = row.group_id;
        mesh.parent.add(part);
        const list = parts.get(row.group_id);
        if (list) list.push(part);
        else parts.set(row.group_id, [part]);
      }
      if (kept > 0) mesh.count = kept;
      else mesh.parent.remove(mesh);
    }
  }
  return parts;
}

/** The attribute and table of a loaded node's instance feature ids, when it has them. */
function featureIdOf(object: Object3D): { attribute: number; propertyTable: number } | null {
  const extensions = object.userData.gltfExtensions as Record<string, unknown> | undefined;
  const featureId = (extensions?.EXT_instance_features as InstanceFeaturesDef | undefined)?.featureIds?.[0];
  if (featureId?.attribute === undefined || featureId.propertyTable === undefined) return null;
  return { attribute: featureId.attribute, propertyTable: featureId.propertyTable };
}
