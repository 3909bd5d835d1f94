// Builds the viewer once when web/dist is missing, so the browser tests run from a clean checkout.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Runs the Vite build unless `web/dist/index.html` already exists. */
export function ensureViewerBuilt(repoDir: string): void {
  if (existsSync(join(repoDir, 'web', 'dist', 'index.html'))) return;
  const vite = join(repoDir, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts'], {
    cwd: repoDir,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`viewer build failed:\n${result.stdout}\n${result.stderr}`);
}
