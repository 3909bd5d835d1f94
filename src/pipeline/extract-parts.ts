import type { Document, Mesh, Node } from '@gltf-transform/core';
import {
  listMeshNodes,
  meshTriangleCount,
  meshVertexCount,
  meshWorldBox,
  toBounds,
} from '../gltf/measure-geometry.ts';
import type { PartInfo, StepContext } from './types.ts';

/** Step name used in logs. */
export const NAME = 'extract-parts';

/** Control characters (C0, DEL, C1): PostgreSQL refuses NUL in text, and none of them belongs in a name. */
const CONTROL_CHARACTERS = /\p{Cc}/gu;

/** A name or id from a file as the catalog stores it: control characters dropped, surrounding blanks trimmed. */
export function cleanText(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '').trim();
}

/** A part's name as listed: its node's, else its mesh's, else `Part <n>` by its place in scene order. */
export function partName(node: Node, mesh: Mesh, index: number): string {
  return cleanText(node.getName()) || cleanText(mesh.getName()) || `Part ${index + 1}`;
}

/** Options of {@link extractParts}. */
export interface ExtractPartsOptions {
  /** Model id, the prefix of generated group ids (`<modelId>:<leaf index>`). */
  modelId: string;
}

/**
 * Lists the parts of a document — the nodes that carry a mesh, in depth-first scene order — and writes each
 * part's `group_id` into its node's `extras`, so it survives into every LOD and reaches the viewer.
 * A node's existing string `extras.group_id` (an IFC GlobalId, or one set by the author) is kept. Names and ids
 * read from the file lose their control characters, so every database stores them alike.
 */
export function extractParts(
  document: Document,
  options: ExtractPartsOptions,
  context: StepContext,
): PartInfo[] {
  const parts: PartInfo[] = [];
  const used = new Set<string>();
  const meshNodes = listMeshNodes(document);
  meshNodes.forEach(({ node, mesh, ancestors }, index) => {
    const extras = node.getExtras();
    const existing =
      typeof extras.group_id === 'string' && cleanText(extras.group_id) !== ''
        ? cleanText(extras.group_id)
        : undefined;
    let groupId = existing ?? `${options.modelId}:${index}`;
    if (used.has(groupId)) {
      const duplicate = groupId;
      for (let n = 2; used.has(groupId); n++) groupId = `${duplicate}~${n}`;
      context.logger.warn(`${NAME}: duplicate group_id "${duplicate}" renamed to "${groupId}"`);
    }
    used.add(groupId);
    node.setExtras({ ...extras, group_id: groupId });
    parts.push({
      group_id: groupId,
      name: partName(node, mesh, index),
      path: ancestors
        .map((ancestor) => cleanText(ancestor.getName()))
        .filter((name) => name !== '')
        .join('/'),
      triangle_count: meshTriangleCount(mesh),
      vertex_count: meshVertexCount(mesh),
      bounds: toBounds(meshWorldBox(mesh, node.getWorldMatrix())),
    });
    context.onProgress?.((index + 1) / meshNodes.length);
  });
  context.logger.debug(`${NAME}: ${parts.length} parts`);
  return parts;
}
