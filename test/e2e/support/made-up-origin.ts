// A site for a browser page that exists only inside the test: every request the page makes is answered here, from
// the test's own bytes and the installed packages, and none leaves the machine.
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const NODE_MODULES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../node_modules');

/** Media types by file extension, for what is served out of node_modules. */
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** What the origin serves besides installed packages: a path and its answer. */
export type OriginFiles = Record<string, { contentType: string; body: string | Buffer }>;

/** The requests a page made that the origin did not serve, as `method url`: aborted, never sent. */
export interface OriginLog {
  outside: string[];
}

/**
 * Answers every request of `page` to `origin`: `files` by path, and paths under one of `packages` (`/three/`,
 * `/@google/model-viewer/`) with that file from the repository's node_modules; other paths are 404s. A request to
 * any other address is aborted and noted in the returned log, so a suite can fail on it.
 */
export async function serveMadeUpOrigin(
  page: Page,
  origin: string,
  files: OriginFiles,
  packages: string[],
): Promise<OriginLog> {
  const log: OriginLog = { outside: [] };
  await page.route('**/*', async (route) => {
    const request = route.request();
    const url = new URL(request.url());
    if (url.origin !== origin) {
      log.outside.push(`${request.method()} ${request.url()}`);
      return route.abort('blockedbyclient');
    }
    const file = files[url.pathname];
    if (file) return route.fulfill({ contentType: file.contentType, body: file.body });
    // normalize() folds any `..`, so a path cannot leave the package it names.
    const path = normalize(decodeURIComponent(url.pathname));
    if (packages.some((prefix) => path.startsWith(prefix))) {
      const body = await readFile(join(NODE_MODULES, path)).catch(() => undefined);
      const contentType = CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
      if (body) return route.fulfill({ contentType, body });
    }
    return route.fulfill({ status: 404, body: 'not found' });
  });
  return log;
}
