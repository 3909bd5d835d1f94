/** Serves the built web viewer (web/dist) at `/` from the API process. */
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Options of {@link registerViewer}. */
export interface ViewerOptions {
  /** Folder holding the Vite build (`index.html` and `assets/`). */
  distDir: string;
}

/** Hashed file names change with their content, so browsers may keep them for a year. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';
/** index.html names the current hashed assets, so it must be revalidated on every visit. */
const PAGE_CACHE = 'no-cache';

/** Text answered at `/` when the viewer was never built. */
export const VIEWER_NOT_BUILT =
  'The Vitrine web viewer is not built. Run `npm run build:web` (or `npx vite build --config web/vite.config.ts`) and restart the server; the APIs work without it.\n';

/**
 * Registers one route per built file instead of a wildcard, so unknown paths under `/api`, `/files`
 * or `/docs` still reach their own not-found handlers. Files added after start-up need a restart.
 */
export async function registerViewer(app: FastifyInstance, options: ViewerOptions): Promise<void> {
  const root = resolve(options.distDir);
  if (!existsSync(join(root, 'index.html'))) {
    const notBuilt = async (_request: unknown, reply: FastifyReply): Promise<string> => {
      reply.code(503).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store');
      return VIEWER_NOT_BUILT;
    };
    app.get('/', { schema: { hide: true } }, notBuilt);
    app.get('/index.html', { schema: { hide: true } }, notBuilt);
    return;
  }
  const assetsDir = join(root, 'assets') + sep;
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    // Another registration of @fastify/static (e.g. for /files) may already own reply.sendFile.
    decorateReply: false,
    cacheControl: false,
    schemaHide: true,
    setHeaders: (reply, path) => {
      reply.header('cache-control', path.startsWith(assetsDir) ? ASSET_CACHE : PAGE_CACHE);
    },
  });
}
