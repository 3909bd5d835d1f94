import path from 'node:path';

/**
 * The checkout's root, for a suite that reads the sources themselves. The runner runs the tests compiled in a copy
 * of the tree whose `.ts` files are links (test/runner/compiled-tree.ts) and names the checkout in TEST_CHECKOUT; a
 * file run on its own under tsx is in the checkout already.
 */
export const CHECKOUT_ROOT = path.resolve(
  process.env.TEST_CHECKOUT ?? path.join(import.meta.dirname, '../..'),
);
