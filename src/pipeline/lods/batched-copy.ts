import { Node, Root } from '@gltf-transform/core';
import type { Accessor, Document, Mesh, Primitive, Property } from '@gltf-transform/core';
import { cloneSharingDataWithout } from '../../gltf/clone-sharing-data.ts';
import type { StepContext } from '../types.ts';
import { planBatch, writeBatch } from './batch-parts.ts';
import { goesOnceBatched, recordRemovedParts } from './retired-part-nodes.ts';
import type { BatchPartsOptions, BatchPlan } from './batch-parts.ts';

/**
 * A copy of `document` with its parts batched (batch-parts.ts), for one level; null when too few parts merge. The
 * batched parts' meshes, primitives and accessors are never copied: at 100,000 parts, copying them to dispose them
 * again took as long as the rest of writing the level. `document` is left as it was.
 */
export function batchedCopy(
  document: Document,
  options: Partial<BatchPartsOptions>,
  context: StepContext,
): Document | null {
  const plan = planBatch(document, options);
  if (!plan) return null;
  const left = undrawnOnceBatched(plan);
  // A part node the batch would remove is not copied either: at 100,000 parts, making and disposing the nodes
  // was a fifth of writing a level.
  const removed = new Set(plan.nodes.filter(goesOnceBatched));
  for (const node of removed) left.add(node);
  // So is an instanced part node that goes; its mesh stays, drawn by the instances. One that stays is copied, to be
  // marked drawn by them.
  for (const group of plan.instances)
    for (const node of group.nodes) if (goesOnceBatched(node)) left.add(node);
  const { copy, copied } = cloneSharingDataWithout(document, left);
  // Those under an object of their own are listed on their parents, so the tree still says where they were.
  recordRemovedParts(
    [...plan.nodes, ...plan.instances.flatMap((group) => group.nodes)].filter((node) => left.has(node)),
    copied,
  );
  const kept = plan.nodes.filter((node) => !removed.has(node));
  const instances = plan.instances.map((group) => ({
    ...group,
    nodes: group.nodes.filter((node) => !goesOnceBatched(node)),
  }));
  writeBatch(copy, { ...plan, nodes: kept, instances }, copied, document, context);
  return copy;
}

/**
 * What nothing draws once the plan's parts are batched: the meshes only batched nodes hold, their primitives, and
 * the accessors only those primitives read.
 */
function undrawnOnceBatched(plan: BatchPlan): Set<Property> {
  const batchedNodes = new Set<Node>(plan.nodes);
  const meshes = new Set<Mesh>(plan.nodes.map((node) => node.getMesh()!));
  const primitives = new Set<Property>();
  const undrawn = new Set<Property>();
  for (const mesh of meshes) {
    if (mesh.listParents().some((parent) => parent instanceof Node && !batchedNodes.has(parent))) continue;
    undrawn.add(mesh);
    for (const primitive of mesh.listPrimitives()) {
      undrawn.add(primitive);
      primitives.add(primitive);
    }
  }
  // Each accessor once: after clean-up, one accessor of a repeated shape is read by every part drawing it.
  const accessors = new Set<Accessor>();
  for (const primitive of primitives as Set<Primitive>) {
    const indices = primitive.getIndices();
    if (indices) accessors.add(indices);
    for (const attribute of primitive.listAttributes()) accessors.add(attribute);
  }
  for (const accessor of accessors) {
    const parents = accessor.listParents();
    if (parents.every((parent) => parent instanceof Root || primitives.has(parent))) undrawn.add(accessor);
  }
  return undrawn;
}
