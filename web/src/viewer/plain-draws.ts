/**
 * The frame that merged and instanced drawing share: a group of meshes beside the model, each drawing a group of
 * plain parts (see plain-parts.ts) in one call, and the bookkeeping that keeps those parts' own meshes out of one
 * frame only. What a drawing mesh is, and how it is built from its members, is the subclass's.
 */
import { Group } from 'three';
import type { Mesh, Object3D } from 'three';
import { holdOut, putBack } from './plain-parts.ts';

/** Plain parts drawn together by one mesh of the draw's own. */
export interface PartGroup {
  /** This frame's plain parts in the group, in a stable order; entries past `count` are stale. */
  members: Mesh[];
  count: number;
  /** How many members the drawing mesh was built from. */
  built: number;
  /** Whether the members differ from those the drawing mesh was built from. */
  dirty: boolean;
  mesh: Object3D | null;
}

/** Appends `mesh` to this frame's members, noting a change from the last frame's at the same place, or `changed`. */
export function addMember(group: PartGroup, mesh: Mesh, changed = false): void {
  const at = group.count++;
  if (group.members[at] !== mesh) {
    group.members[at] = mesh;
    group.dirty = true;
  } else if (changed) group.dirty = true;
}

/** Draws groups of plain parts a call each: add {@link PlainDraws.group} to the scene and draw through {@link PlainDraws.render}. */
export abstract class PlainDraws<G extends PartGroup> {
  /** Holds the drawing meshes; placed at the scene's origin, each carries its own world matrices. */
  readonly group = new Group();
  /** Counts frames, so state not seen this frame can be told and dropped. */
  protected frame = 0;
  /** The groups drawing this frame, whose members are held out until {@link PlainDraws.restore}. */
  private readonly drawn: G[] = [];
  private held = 0;

  constructor(name: string) {
    this.group.name = name;
    this.group.matrixAutoUpdate = false;
  }

  /** How many meshes of its own the last {@link PlainDraws.prepare} set drawing. */
  get meshesDrawn(): number {
    return this.drawn.length;
  }

  /** How many part meshes the last {@link PlainDraws.prepare} kept out of the frame (drawn by those meshes instead). */
  get partsHeld(): number {
    return this.held;
  }

  /**
   * Sorts the plain parts of `parts` into groups and sets the frame up; `scene` is what the frame draws. Call
   * {@link PlainDraws.restore} right after the render.
   */
  abstract prepare(parts: Map<string, Mesh[]>, scene: Object3D): void;

  /** Frees the meshes of its own (never the parts', which are the model's). */
  abstract dispose(): void;

  /** Draws one frame with `draw` (a render of `scene`) between {@link PlainDraws.prepare} and {@link PlainDraws.restore}. */
  render(parts: Map<string, Mesh[]>, scene: Object3D, draw: () => void): void {
    this.prepare(parts, scene);
    try {
      draw();
    } finally {
      // Every tool (picking, caps, styles) finds the part meshes as it left them.
      this.restore();
    }
  }

  /** Puts the part meshes kept out of the frame back on their layer, as every tool expects to find them. */
  restore(): void {
    for (const group of this.drawn) putBack(group.members, group.count);
  }

  /** Starts settling a frame's groups: none draws yet. */
  protected beginSettling(): void {
    this.drawn.length = 0;
    this.held = 0;
  }

  /**
   * Ends a group's frame: with two members or more its mesh (built or brought up to date by `show`) draws them and
   * they are held out; with fewer, each member draws itself. Answers whether the group is kept (an empty one is
   * freed by `drop`).
   */
  protected settle(group: G, show: (group: G) => Object3D, drop: (group: G) => void): boolean {
    if (group.count !== group.built) group.dirty = true;
    if (group.count === 0) {
      drop(group);
      return false;
    }
    if (group.count < 2) {
      if (group.mesh) group.mesh.visible = false;
      return true;
    }
    show(group).visible = true;
    holdOut(group.members, group.count);
    this.drawn.push(group);
    this.held += group.count;
    return true;
  }
}
