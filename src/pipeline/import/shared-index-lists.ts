import { hash } from 'node:crypto';
import type { Accessor } from '@gltf-transform/core';
import { bytesOf } from '../dedup-by-hash.ts';

/**
 * One index accessor per distinct index list of a document being imported: parts of one topology (every box of 12
 * triangles) read the same list, as clean-up's dedup would leave them, without 100,000 accessors made only for it
 * to find equal and dispose of again.
 */
export class SharedIndexLists {
  private readonly byDigest = new Map<string, Accessor[]>();

  /** `create` makes the accessor of a list met for the first time. */
  constructor(private readonly create: (indices: Uint32Array<ArrayBuffer>) => Accessor) {}

  /** The accessor of a list holding `indices`: an earlier one with the same values, or a new one. */
  accessorFor(indices: Uint32Array<ArrayBuffer>): Accessor {
    const bytes = bytesOf(indices);
    const digest = hash('sha1', bytes, 'base64');
    const bucket = this.byDigest.get(digest);
    // A digest match is not taken alone: the bytes are compared.
    const same = bucket?.find((accessor) => bytes.equals(bytesOf(accessor.getArray()!)));
    if (same) return same;
    const accessor = this.create(indices);
    if (bucket) bucket.push(accessor);
    else this.byDigest.set(digest, [accessor]);
    return accessor;
  }
}
