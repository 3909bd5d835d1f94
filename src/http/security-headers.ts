import type { FastifyInstance, FastifyReply } from 'fastify';

/** Content-Security-Policy directives, by name; joined into a header by {@link formatCsp}. */
export type CspDirectives = Record<string, string[]>;

/**
 * Policy of the pages the service serves (the viewer, `/docs`) and of their scripts, which a worker would run
 * under: scripts only from the origin (no inline script, no eval, so injected markup cannot run), WebAssembly for
 * the meshopt decoder, models and textures from the origin or the public base URL, and never framed.
 * Inline styles stay allowed: they cannot read the token, and three.js and Swagger UI set style attributes.
 */
export function pageCspDirectives(fileOrigins: string[] = []): CspDirectives {
  const files = ["'self'", ...fileOrigins];
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'", "'wasm-unsafe-eval'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': [...files, 'data:', 'blob:'],
    'connect-src': [...files, 'data:', 'blob:'],
    'worker-src': ["'self'", 'blob:'],
    'font-src': ["'self'", 'data:'],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
}

/**
 * Policy of everything that is not a page (JSON, stored files, images): nothing may load, and a browser that is
 * sent to it anyway renders it in a sandbox, an opaque origin that can neither run script nor read the
 * service's storage.
 */
export const INERT_CSP: CspDirectives = {
  'default-src': ["'none'"],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  sandbox: [],
};

/** Joins directives into a `Content-Security-Policy` value. */
export function formatCsp(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, values]) => [name, ...values].join(' '))
    .join('; ');
}

/** Headers every response carries, whatever route or error produced it. */
export const COMMON_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

/** Options of {@link registerSecurityHeaders}. */
export interface SecurityHeaderOptions {
  /** Origins besides the service's own that pages fetch models and images from (the public base URL's). */
  fileOrigins?: string[];
}

const PAGE_TYPES = /^(text\/html|text\/javascript|application\/javascript)\b/i;

/**
 * Adds the security headers to every response, errors and 404s included. Pages and scripts get the page
 * policy, everything else the inert one. A route that needs another policy (a page meant to be embedded) sets
 * its own `Content-Security-Policy` or `X-Frame-Options` and that value is kept; build it from
 * {@link pageCspDirectives} so it stays as strict everywhere else.
 */
export function registerSecurityHeaders(app: FastifyInstance, options: SecurityHeaderOptions = {}): void {
  const pageCsp = formatCsp(pageCspDirectives(options.fileOrigins));
  const inertCsp = formatCsp(INERT_CSP);
  // A callback hook, not an async one: it runs on every reply, and a promise per reply is measurable on the hot reads.
  app.addHook('onSend', (_request, reply, payload, done) => {
    setMissing(reply, COMMON_SECURITY_HEADERS);
    // A route's own policy decides framing too: X-Frame-Options would contradict its frame-ancestors.
    if (!reply.hasHeader('content-security-policy')) {
      const type = String(reply.getHeader('content-type') ?? '');
      reply.header('content-security-policy', PAGE_TYPES.test(type) ? pageCsp : inertCsp);
      if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY');
    }
    done(null, payload);
  });
}

function setMissing(reply: FastifyReply, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!reply.hasHeader(name)) reply.header(name, value);
  }
}
