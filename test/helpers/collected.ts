import { fullCollection } from '../../src/threads/full-collection.ts';

const turn = () => new Promise((resolve) => setTimeout(resolve, 20));

/**
 * Whether what `ref` points to is collected within a few full collections. Each runs in a turn of its own: a weak
 * reference read in a turn holds its target to the turn's end.
 */
export async function collected(ref: WeakRef<object>, rounds = 10): Promise<boolean> {
  const gc = fullCollection();
  for (let round = 0; round < rounds; round++) {
    await turn();
    gc();
    await turn();
    if (ref.deref() === undefined) return true;
  }
  return false;
}
