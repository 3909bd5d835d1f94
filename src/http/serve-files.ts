import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { FILES_ROUTE_PREFIX } from '../storage/file-store.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.glb': 'model/gltf-binary',
  '.gltf': 'model/gltf+json',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
};

/**
 * Serves a file store's objects at `/files/…` without a token (names are unguessable), with ETag, Range and a
 * year of immutable caching: every stored name changes when its content does.
 */
export async function registerFileServing(app: FastifyInstance, root: string): Promise<void> {
  await app.register(fastifyStatic, {
    root,
    prefix: FILES_ROUTE_PREFIX,
    decorateReply: false,
    index: false,
    list: false,
    dotfiles: 'deny',
    etag: true,
    lastModified: true,
    acceptRanges: true,
    cacheControl: true,
    maxAge: '365d',
    immutable: true,
    setHeaders(res, filePath) {
      const extension = filePath.slice(filePath.lastIndexOf('.')).toLowerCase();
      const type = CONTENT_TYPES[extension];
      if (type) res.setHeader('Content-Type', type);
      res.setHeader('Access-Control-Allow-Origin', '*');
    },
  });
}
