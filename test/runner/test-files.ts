// Which test files a run of `npm test` covers: every `*.test.ts` under test/, or those the arguments name.
import fs from 'node:fs';
import path from 'node:path';

/** Every `*.test.ts` under `dir`, sorted, as `find test -name '*.test.ts' | sort` lists them. */
export function allTestFiles(dir = 'test'): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The files the filters pick: a filter naming a file or folder picks it (a folder: the test files under it), any
 * other picks the files whose path contains it. No filter picks every file. Throws on a filter that picks nothing.
 */
export function selectTestFiles(all: string[], filters: string[]): string[] {
  if (filters.length === 0) return all;
  const picked = new Set<string>();
  for (const filter of filters) {
    const normal = path.normalize(filter).replace(/\/$/, '');
    const matches = fs.existsSync(filter)
      ? all.filter((file) => file === normal || file.startsWith(`${normal}${path.sep}`))
      : all.filter((file) => file.includes(filter));
    if (matches.length === 0) throw new Error(`no test file matches "${filter}"`);
    for (const file of matches) picked.add(file);
  }
  return all.filter((file) => picked.has(file));
}

/** The files among `files` whose source contains `marker` (the skip option a suite passes, say). */
export function filesUsing(files: string[], marker: string): string[] {
  return files.filter((file) => fs.readFileSync(file, 'utf8').includes(marker));
}
