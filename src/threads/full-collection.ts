import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * V8's full collection, as `--expose-gc` gives it: the flag reaches the contexts made after it is set, so a context
 * made for the purpose hands the function over, and no other code of this thread sees a `gc` global.
 */
export function fullCollection(): () => void {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}
