import zlib from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Replies smaller than this go as they are: compressing a single material saves less than it costs. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Brotli quality 1: 31 MB of bulk lookup in about 15 ms to about 0.25 MB; higher levels cost 10× the time. */
const BROTLI_QUALITY = 1;

/** gzip level 3: about as fast as level 1 on these replies and a fifth smaller (0.39 against 0.50 MB). */
const GZIP_LEVEL = 3;

// JSON and nothing else: stored files (GLB, PNG, zip) are already compressed or served as they are.
const isJson = (contentType: string) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType);

/**
 * Compresses JSON replies of the APIs (`/api/…`) above {@link COMPRESSION_THRESHOLD_BYTES} with `br` or `gzip`, as
 * the client's `Accept-Encoding` prefers, at speed-oriented levels; large replies compress off the event loop in
 * zlib's thread pool. Routes outside `/api/` (stored files, the viewer, the docs) are left alone, and request bodies
 * are never decompressed. Must be registered before the routes.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  // Runs before the plugin's own onRoute hook, which skips routes marked `compress: false`.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) route.compress = false;
  });
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    customTypes: isJson,
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
    zlibOptions: { level: GZIP_LEVEL },
  });
}
