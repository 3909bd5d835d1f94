// Builds the viewer when web/dist is missing or older than its sources, so the browser tests never run a stale build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Latest modification time of a file or of any file below a folder. */
function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

/** Every file below a folder. */
function filesBelow(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesBelow(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

/**
 * The service's own modules the viewer bundles (web/src imports a few from src/, for shared names and types),
 * followed through their relative imports.
 */
export function bundledServiceModules(repoDir: string): string[] {
  const web = join(repoDir, 'web');
  const found = new Set<string>();
  const pending = filesBelow(join(web, 'src')).filter((file) => /\.ts$/.test(file));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      const target = resolve(dirname(file), specifier!);
      if (target.startsWith(web) || found.has(target) || !existsSync(target)) continue;
      found.add(target);
      pending.push(target);
    }
  }
  return [...found];
}

/** True when `web/dist/index.html` is missing or a source of the viewer changed after it was built. */
export function viewerBuildIsStale(repoDir: string): boolean {
  const built = join(repoDir, 'web', 'dist', 'index.html');
  if (!existsSync(built)) return true;
  const sources = [
    ...['src', 'index.html', 'share.html', 'vite.config.ts'].map((name) => join(repoDir, 'web', name)),
    ...bundledServiceModules(repoDir),
  ];
  return Math.max(...sources.map(newestMtime)) > statSync(built).mtimeMs;
}

/** Runs the Vite build when {@link viewerBuildIsStale}. */
export function ensureViewerBuilt(repoDir: string): void {
  if (!viewerBuildIsStale(repoDir)) return;
  const vite = join(repoDir, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts'], {
    cwd: repoDir,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`viewer build failed:\n${result.stdout}\n${result.stderr}`);
}
