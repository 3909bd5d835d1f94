import type { Document, Mesh, Node } from '@gltf-transform/core';
import {
  listMeshNodes,
  meshTriangleCount,
  meshVertexCount,
  meshWorldBox,
  toBounds,
} from '../gltf/measure-geometry.ts';
import { cleanText } from './clean-text.ts';
import {
  PROPERTIES_EXTRAS_KEY,
  PROPERTY_LIMITS,
  boundProperties,
  propertiesFromExtras,
} from './part-properties.ts';
import type { PartProperties } from './part-properties.ts';
import type { PartInfo, StepContext } from './types.ts';

/** Step name used in logs. */
export const NAME = 'extract-parts';

/** A name or id from a file as the catalog stores it (kept here for the code that imports it from this step). */
export { cleanText };

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
  let budget: number = PROPERTY_LIMITS.perModel;
  let dropped = 0;
  meshNodes.forEach(({ node, mesh, ancestors }, index) => {
    const { [PROPERTIES_EXTRAS_KEY]: given, ...extras } = node.getExtras();
    // An importer's properties are taken out of the extras, so they never reach the LOD files.
    const read = boundProperties(
      (given as PartProperties | undefined) ?? propertiesFromExtras(extras),
      budget,
    );
    budget -= read.count;
    dropped += read.dropped;
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
      properties: read.properties,
    });
    context.onProgress?.((index + 1) / meshNodes.length);
  });
  // Nodes without a mesh are no parts; whatever an importer left on them goes too.
  for (const node of document.getRoot().listNodes()) {
    const { [PROPERTIES_EXTRAS_KEY]: left, ...rest } = node.getExtras();
    if (left !== undefined) node.setExtras(rest);
  }
  if (dropped > 0) {
    context.logger.warn(
      `${NAME}: ${dropped} properties dropped past the caps of ${PROPERTY_LIMITS.perPart} a part and ${PROPERTY_LIMITS.perModel} a model`,
    );
  }
  context.logger.debug(`${NAME}: ${parts.length} parts`);
  return parts;
}
