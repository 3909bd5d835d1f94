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
import { createFingerprintCache, fingerprintPart } from './part-fingerprint.ts';
import { matchParts } from './match-parts.ts';
import type { NewPart } from './match-parts.ts';
import type { PartInfo, PreviousPart, StepContext } from './types.ts';

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
  /** Model id, the prefix of generated group ids (`<modelId>:<leaf index>`) unless `newGroupIdPrefix` is given. */
  modelId: string;
  /**
   * The parts of the version this conversion continues: a part matched to one of them (match-parts.ts) takes its
   * `group_id`. None: every part is new.
   */
  previousParts?: readonly PreviousPart[];
  /** Prefix of the group ids of unmatched parts (`<prefix><leaf index>`), in place of `<modelId>:`. */
  newGroupIdPrefix?: string;
}

/** A part read from its node, before it has its group id. */
type Draft = Omit<PartInfo, 'group_id'> & NewPart & { node: Node };

/**
 * Lists the parts of a document — the nodes that carry a mesh, in depth-first scene order — with their fingerprints,
 * and writes each part's `group_id` into its node's `extras`, so it survives into every LOD and reaches the viewer.
 * A node's existing string `extras.group_id` (an IFC GlobalId, or one set by the author) is kept; any other part
 * continues a previous part when one matches (`previousParts`), or gets a new id. Names and ids read from the file
 * lose their control characters, so every database stores them alike.
 */
export function extractParts(
  document: Document,
  options: ExtractPartsOptions,
  context: StepContext,
): PartInfo[] {
  const drafts = readDrafts(document, context);
  uniqueFileIds(drafts, context);
  const matches = options.previousParts ? matchParts(drafts, options.previousParts) : [];
  // A previous id that the file gives a part is matched by identity, so no carried id repeats a file's id.
  const used = new Set([
    ...drafts.flatMap((draft) => draft.fileId ?? []),
    ...matches.flatMap((match) => match?.group_id ?? []),
  ]);
  const prefix = options.newGroupIdPrefix ?? `${options.modelId}:`;
  const parts = drafts.map(({ node, fileId, named: _named, ...part }, index): PartInfo => {
    let groupId = fileId ?? matches[index]?.group_id;
    if (groupId === undefined) {
      // A generated id gives way to the ids the file gave and the ids carried over.
      groupId = unused(`${prefix}${index}`, used);
      if (groupId !== `${prefix}${index}`)
        context.logger.warn(`${NAME}: duplicate group_id "${prefix}${index}" renamed to "${groupId}"`);
      used.add(groupId);
    }
    node.setExtras({ ...node.getExtras(), group_id: groupId });
    return { group_id: groupId, ...part };
  });
  if (options.previousParts) {
    const counts = new Map<string, number>();
    for (const match of matches) if (match) counts.set(match.by, (counts.get(match.by) ?? 0) + 1);
    context.logger.debug(
      `${NAME}: of ${options.previousParts.length} previous parts, ${[...counts].map(([by, n]) => `${n} matched by ${by}`).join(', ') || 'none matched'}`,
    );
  }
  context.logger.debug(`${NAME}: ${parts.length} parts`);
  return parts;
}

/** Reads every mesh node's part: names, counts, bounds, properties (taken out of the extras) and fingerprint. */
function readDrafts(document: Document, context: StepContext): Draft[] {
  const drafts: Draft[] = [];
  const meshNodes = listMeshNodes(document);
  const cache = createFingerprintCache();
  let budget: number = PROPERTY_LIMITS.perModel;
  let dropped = 0;
  meshNodes.forEach(({ node, mesh, ancestors, world }, index) => {
    const { [PROPERTIES_EXTRAS_KEY]: given, ...extras } = node.getExtras();
    // An importer's properties are taken out of the extras, so they never reach the LOD files.
    const read = boundProperties(
      (given as PartProperties | undefined) ?? propertiesFromExtras(extras),
      budget,
    );
    budget -= read.count;
    dropped += read.dropped;
    node.setExtras(extras);
    const fileId =
      typeof extras.group_id === 'string' && cleanText(extras.group_id) !== ''
        ? cleanText(extras.group_id)
        : undefined;
    drafts.push({
      node,
      fileId,
      name: partName(node, mesh, index),
      named: cleanText(node.getName()) !== '' || cleanText(mesh.getName()) !== '',
      path: ancestors
        .map((ancestor) => cleanText(ancestor.getName()))
        .filter((name) => name !== '')
        .join('/'),
      triangle_count: meshTriangleCount(mesh),
      vertex_count: meshVertexCount(mesh),
      bounds: toBounds(meshWorldBox(mesh, world)),
      properties: read.properties,
      fingerprint: fingerprintPart(world, mesh, read.properties, cache),
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
  return drafts;
}

/** A file id given to several parts stays with the first; the others get `~2`, `~3`, … in scene order. */
function uniqueFileIds(drafts: Draft[], context: StepContext): void {
  const seen = new Set<string>();
  for (const draft of drafts) {
    if (draft.fileId === undefined) continue;
    const id = unused(draft.fileId, seen);
    if (id !== draft.fileId)
      context.logger.warn(`${NAME}: duplicate group_id "${draft.fileId}" renamed to "${id}"`);
    draft.fileId = id;
    seen.add(id);
  }
}

/** `id`, or `id~2`, `id~3`, … whichever `used` does not hold first. */
function unused(id: string, used: ReadonlySet<string>): string {
  let candidate = id;
  for (let n = 2; used.has(candidate); n++) candidate = `${id}~${n}`;
  return candidate;
}
