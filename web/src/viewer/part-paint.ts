/** The three.js materials made from the catalog materials bound to parts: one per bound material, shared by its parts. */
import type { Material as ThreeMaterial } from 'three';
import type { Material } from '../api/types.ts';
import { materialToThree } from './material-to-three.ts';

/** Bound materials by part and the three.js materials made of them for the parts loaded. */
export class PartPaint {
  private bound = new Map<string, Material>();
  private made = new Map<number, ThreeMaterial>();

  /** Takes a new binding of parts to materials; call {@link PartPaint.remake} for the parts loaded. */
  set(bound: Map<string, Material>): void {
    this.bound = bound;
  }

  /** Makes the materials of `groupIds` afresh (after a new binding), freeing the earlier ones. */
  remake(groupIds: Iterable<string>): void {
    const previous = this.made;
    this.made = new Map();
    this.add(groupIds);
    for (const material of previous.values()) material.dispose();
  }

  /** Makes the materials of parts not seen before (tiles streaming in); true when any was made. */
  add(groupIds: Iterable<string>): boolean {
    let added = false;
    for (const groupId of groupIds) {
      const bound = this.bound.get(groupId);
      if (!bound || this.made.has(bound.id)) continue;
      this.made.set(bound.id, materialToThree(bound));
      added = true;
    }
    return added;
  }

  /** The material a part is painted with, or undefined when it shows its own. */
  materialOf(groupId: string | null): ThreeMaterial | undefined {
    const bound = groupId === null ? undefined : this.bound.get(groupId);
    return bound && this.made.get(bound.id);
  }

  /** Frees every material made (the binding stays for the next model). */
  clear(): void {
    for (const material of this.made.values()) material.dispose();
    this.made = new Map();
  }
}
