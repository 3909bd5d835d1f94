/** Serves the built web viewer (web/dist) at `/` from the API process. */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Options of {@link registerViewer}. */
export interface ViewerOptions {
  /** Folder holding the Vite build (`index.html` and `assets/`). */
  distDir: string;
}

/** Hashed file names change with their content, so browsers may keep them for a year. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** Text answered at `/` when the viewer was never built. */
export const VIEWER_NOT_BUILT =
  'The Vitrine web viewer is not built. Run `npm run build:web` (or `npx vite build --config web/vite.config.ts`); the APIs work without it.\n';

/**
 * Registers `/`, `/index.html` and `/assets/*` only, so unknown paths under `/api`, `/files` or `/docs`
 * still reach their own not-found handlers. index.html is read on each request: it is small, must never
 * be cached, and this way a rebuild (or a first build) is served without restarting the server.
 */
export async function registerViewer(app: FastifyInstance, options: ViewerOptions): Promise<void> {
  const root = resolve(options.distDir);
  const indexFile = join(root, 'index.html');

  const sendIndex = async (_request: unknown, reply: FastifyReply): Promise<string> => {
    let html: string;
    try {
      html = await readFile(indexFile, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      reply.code(503).type('text/plain; charset=utf-8').header('cache-control', 'no-store');
      return VIEWER_NOT_BUILT;
    }
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache');
    return html;
  };
  app.get('/', { schema: { hide: true } }, sendIndex);
  app.get('/index.html', { schema: { hide: true } }, sendIndex);

  await app.register(fastifyStatic, {
    root: join(root, 'assets'),
    prefix: '/assets/',
    // Another registration of @fastify/static (the stored files) may already own reply.sendFile.
    decorateReply: false,
    index: false,
    list: false,
    cacheControl: false,
    schemaHide: true,
    setHeaders: (res) => {
      res.setHeader('cache-control', ASSET_CACHE);
    },
  });
}
