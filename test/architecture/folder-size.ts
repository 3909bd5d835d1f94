// How many files each folder of src/ holds flat: past a limit a folder splits into rooms by job.
import fs from 'node:fs';
import path from 'node:path';

/** Most files a folder of src/ may hold flat (sub-folders not counted). */
export const MAX_FILES_FLAT = 25;

/** Each folder under `root` (itself included), relative to it with `/`, and the files it holds flat. */
export function filesFlat(root: string): Map<string, number> {
  const counts = new Map<string, number>();
  const walk = (dir: string): void => {
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    counts.set(
      path.relative(root, dir).split(path.sep).join('/') || '.',
      entries.filter((e) => e.isFile()).length,
    );
    for (const entry of entries) if (entry.isDirectory()) walk(path.join(dir, entry.name));
  };
  walk(root);
  return counts;
}

/** The folders of `counts` holding more than `limit` files flat, as `folder: count`. */
export function crowdedFolders(counts: ReadonlyMap<string, number>, limit = MAX_FILES_FLAT): string[] {
  return [...counts]
    .filter(([, count]) => count > limit)
    .map(([folder, count]) => `${folder}: ${count}`)
    .sort();
}
