/**
 * The exploded view's arithmetic along the assembly's hierarchy. The parts' paths make the assemblies (folders, as
 * the parts tree shows them); each assembly moves away from its parent's centre and each part from its assembly's
 * centre. Moved all by one factor, these steps add up to the part's distance from the model's centre, which is a
 * plain radial explode; so the slider opens the hierarchy in stages instead: the top assemblies separate first,
 * carrying their parts together, then the parts within them, one stage per level. A flat model has one stage,
 * which the whole slider drives, as it always did.
 */
import { Box3, Vector3 } from 'three';

/** One move of a part's explode: the `vector` from a node's parent's centre to its own, opened at `stage` (1 …). */
export interface ExplodeStep {
  stage: number;
  vector: Vector3;
}

/** Each part's steps, from its top assembly down to itself, and how many stages the hierarchy has (at least 1). */
export interface ExplodeSteps {
  steps: Map<string, readonly ExplodeStep[]>;
  stages: number;
}

/** What the steps need of a part: its path (ancestors' names joined by "/") and its box, assembled. */
export interface ExplodePart {
  path: string;
  box: Box3;
}

interface Assembly {
  parent: Assembly | null;
  box: Box3;
  /** Child assemblies and parts directly in it. */
  children: number;
  /** The steps from the top down to this assembly, made once it is needed. */
  chain: readonly ExplodeStep[] | null;
  /** The stage its children open at. */
  childStage: number;
}

/**
 * The steps of every part of `parts` (by group id) about the model's `centre`. Linear in the parts and their
 * paths' lengths: an assembly's chain of steps is made once and shared by the parts within it.
 */
export function explodeSteps(parts: ReadonlyMap<string, ExplodePart>, centre: Vector3): ExplodeSteps {
  const root: Assembly = { parent: null, box: new Box3(), children: 0, chain: [], childStage: 0 };
  const assemblies = new Map<string, Assembly>([['', root]]);
  const assemblyOf = new Map<string, Assembly>();
  for (const [groupId, part] of parts) {
    let assembly = root;
    let path = '';
    for (const name of part.path ? part.path.split('/') : []) {
      path = path ? `${path}/${name}` : name;
      let child = assemblies.get(path);
      if (!child) {
        child = { parent: assembly, box: new Box3(), children: 0, chain: null, childStage: 0 };
        assemblies.set(path, child);
        assembly.children++;
      }
      assembly = child;
    }
    assembly.children++;
    assemblyOf.set(groupId, assembly);
    if (part.box.isEmpty()) continue;
    for (let at: Assembly | null = assembly; at; at = at.parent) at.box.union(part.box);
  }

  const centreOf = (assembly: Assembly): Vector3 =>
    assembly === root || assembly.box.isEmpty() ? centre.clone() : assembly.box.getCenter(new Vector3());
  // A node with one child coincides with it: no stage is spent on a step that cannot move anything.
  root.childStage = root.children > 1 ? 1 : 0;
  let stages = 1;
  const chainOf = (assembly: Assembly): readonly ExplodeStep[] => {
    if (assembly.chain) return assembly.chain;
    const parent = assembly.parent!;
    const above = chainOf(parent);
    const stage = Math.max(1, parent.childStage);
    assembly.childStage = parent.childStage + (assembly.children > 1 ? 1 : 0);
    assembly.chain = [...above, { stage, vector: centreOf(assembly).sub(centreOf(parent)) }];
    stages = Math.max(stages, stage);
    return assembly.chain;
  };

  const steps = new Map<string, readonly ExplodeStep[]>();
  for (const [groupId, part] of parts) {
    const assembly = assemblyOf.get(groupId)!;
    const chain = chainOf(assembly);
    const stage = Math.max(1, assembly.childStage);
    stages = Math.max(stages, stage);
    const own = part.box.isEmpty()
      ? new Vector3()
      : part.box.getCenter(new Vector3()).sub(centreOf(assembly));
    steps.set(groupId, [...chain, { stage, vector: own }]);
  }
  return { steps, stages };
}

/**
 * How far each stage is open for the slider at `factor` (0 … `max`): the slider's range split evenly, each stage
 * opening to `max` in its share, the top one first. Index 0 is stage 1.
 */
export function stageFactors(factor: number, stages: number, max: number): number[] {
  return Array.from({ length: stages }, (_, index) =>
    Math.min(Math.max(factor * stages - index * max, 0), max),
  );
}

/** A part's move, in the world's frame: each of its steps times its stage's factor. */
export function explodeOffset(steps: readonly ExplodeStep[], factors: readonly number[]): Vector3 {
  const offset = new Vector3();
  for (const { stage, vector } of steps) offset.addScaledVector(vector, factors[stage - 1] ?? 0);
  return offset;
}

/** Each part's path by group id, from the parts the API lists: the hierarchy {@link explodeSteps} follows. */
export function partPaths(parts: readonly { group_id: string; path: string }[]): Map<string, string> {
  return new Map(parts.map((part) => [part.group_id, part.path]));
}
