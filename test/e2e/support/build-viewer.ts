// Builds the viewer when web/dist is missing or older than its sources, so the browser tests never run a stale build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Latest modification time of a file or of any file below a folder. */
function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when `web/dist/index.html` is missing or a source of the viewer changed after it was built. */
export function viewerBuildIsStale(repoDir: string): boolean {
  const built = join(repoDir, 'web', 'dist', 'index.html');
  if (!existsSync(built)) return true;
  const sources = ['src', 'index.html', 'share.html', 'vite.config.ts'].map((name) =>
    join(repoDir, 'web', name),
  );
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
