import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { FILES_ROUTE_PREFIX } from '../../storage/files-route.ts';
import { decideFileAccess, privateCacheControl, refuseFile, type FileAccessOptions } from './file-access.ts';
import { formatCsp, INERT_CSP } from '../security-headers.ts';

/**
 * Content types by stored extension. Only these are ever sent: a stored name with any other extension (an
 * upload called `evil.html` or `logo.svg`) goes out as `application/octet-stream`, so no stored file is ever
 * `text/html`, `image/svg+xml` or another type a browser would run.
 */
const CONTENT_TYPES: Record<string, string> = {
  '.glb': 'model/gltf-binary',
  '.gltf': 'model/gltf+json',
  '.json': 'application/json',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.obj': 'model/obj',
  '.stl': 'model/stl',
  '.3mf': 'model/3mf',
  '.usdz': 'model/vnd.usdz+zip',
  '.zip': 'application/zip',
};

/** Types a browser may show in a tab (the viewer fetches the rest; an opened one downloads). */
const SHOWN_INLINE = new Set(['model/gltf-binary', 'model/gltf+json', 'image/png', 'image/jpeg']);

/** An uploaded original: whatever it is called and holds, it is only ever downloaded. */
const ORIGINAL = /^models\/[^/]+\/source\//;

const FILES_CSP = formatCsp(INERT_CSP);

/** How a stored file at `key` is sent: its content type and whether it must download. */
export function storedFileHeaders(key: string): { contentType: string; attachment: boolean } {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot).toLowerCase() : '';
  const contentType = CONTENT_TYPES[extension] ?? 'application/octet-stream';
  return { contentType, attachment: ORIGINAL.test(key) || !SHOWN_INLINE.has(contentType) };
}

/**
 * Serves a file store's objects at `/files/…` to requests with a valid signature (the URLs the API hands out)
 * or an API token, with ETag and Range, cached privately no longer than the signature lasts; anything else is
 * 404 (401 for a wrong token) before the disk is read. Every answer is inert: a type from the allow-list above, `nosniff`, a sandboxing
 * CSP, and originals as attachments.
 */
export async function registerFileServing(
  app: FastifyInstance,
  root: string,
  access: FileAccessOptions,
): Promise<void> {
  await app.register(async (files) => {
    files.addHook('onRequest', async (request, reply) => {
      const key = (request.params as { '*'?: string })['*'] ?? '';
      const decision = await decideFileAccess(request, key, access);
      if (!decision.granted) return refuseFile(reply, decision);
      reply.header('cache-control', privateCacheControl(decision.reuseSeconds));
    });
    // The stored name decides the headers, after @fastify/static has chosen its own from the extension.
    files.addHook('onSend', async (request, reply, payload) => {
      const key = (request.params as { '*'?: string })['*'] ?? '';
      const { contentType, attachment } = storedFileHeaders(key);
      if (reply.statusCode < 300 || reply.statusCode === 304) {
        reply.header('content-type', contentType);
        if (attachment) reply.header('content-disposition', contentDisposition(key));
      }
      reply.header('x-content-type-options', 'nosniff');
      reply.header('content-security-policy', FILES_CSP);
      reply.header('x-frame-options', 'DENY');
      return payload;
    });
    await files.register(fastifyStatic, {
      root,
      prefix: FILES_ROUTE_PREFIX,
      decorateReply: false,
      index: false,
      list: false,
      dotfiles: 'deny',
      etag: true,
      lastModified: true,
      acceptRanges: true,
      // Set by the access check above: a signed answer is reused no longer than its signature lasts.
      cacheControl: false,
      setHeaders(res) {
        res.setHeader('Access-Control-Allow-Origin', '*');
      },
    });
  });
}

/** `attachment` with the key's file name, plain ASCII and an RFC 5987 form, so no quote or CR can break out. */
export function contentDisposition(key: string): string {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const ascii = name.replace(/[^A-Za-z0-9._-]/g, '_') || 'download';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
