import path from 'node:path';
import { CHECKOUT_ROOT } from './checkout-root.ts';

/**
 * The node arguments that run the `vitrine` CLI as this suite itself runs, with `nodeArgs` before its entry: the
 * compiled copy's `src/cli.js` with no loader when the runner compiled the tests (test/runner/compiled-tree.ts),
 * `src/cli.ts` under tsx when the file runs alone. Loading the server's 900 modules through tsx's hooks cost each
 * process started about a second of processor time.
 */
export function cliArguments(nodeArgs: string[] = []): string[] {
  if (import.meta.filename.endsWith('.js')) {
    const entry = path.join(import.meta.dirname, '..', '..', 'src', 'cli.js');
    return ['--enable-source-maps', ...nodeArgs, entry];
  }
  return ['--import', import.meta.resolve('tsx'), ...nodeArgs, path.join(CHECKOUT_ROOT, 'src', 'cli.ts')];
}
