// The decision on a `/files/` request, alone: which grants can be revoked (and so lead to short-lived redirects),
// and a retryable 503, not a 500, while the database that says whether a grant lives cannot answer.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { DATABASE_UNAVAILABLE } from '../../src/db/unavailable.ts';
import { decideFileAccess, type FileAccessOptions } from '../../src/http/files/file-access.ts';
import { createFileUrlSigner } from '../../src/http/files/file-url-signer.ts';
import { createTokenChecker } from '../../src/http/auth/token-checker.ts';

const GRANT = '0b7e4c1e-2a57-4c1e-9d0a-3f1e2d4c5b6a';
const KEY = 'models/m/lod0-0123456789abcdef.glb';
const signer = createFileUrlSigner({ key: Buffer.alloc(32, 1), lifetimeMs: 3_600_000 });

/** A request for the path and query of `url`, with the headers given. */
function requestOf(url: string, headers: Record<string, string> = {}): FastifyRequest {
  const { searchParams } = new URL(url);
  return { query: Object.fromEntries(searchParams), headers } as unknown as FastifyRequest;
}

/** Options whose grant check answers with `isLive`. */
function options(isLive: (tokenId: string) => Promise<boolean>): FileAccessOptions {
  return {
    signer,
    checkToken: createTokenChecker('admin-token-0123456789'),
    grants: { isLive, forget: () => {} } as unknown as FileAccessOptions['grants'],
  };
}

void it("answers 503 with the database's message while a grant cannot be checked", async () => {
  const url = signer.sign(KEY, 'http://x', GRANT);
  const decision = await decideFileAccess(
    requestOf(url),
    KEY,
    options(() => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'))),
  );
  assert.deepEqual(decision, { granted: false, status: 503, message: DATABASE_UNAVAILABLE });
});

void it("tells a scoped token's grant, revocable, from the admin token's", async () => {
  const live = options(() => Promise.resolve(true));
  const scoped = await decideFileAccess(requestOf(signer.sign(KEY, 'http://x', GRANT)), KEY, live);
  assert.equal(scoped.granted && scoped.revocable, true);
  const admin = await decideFileAccess(requestOf(signer.sign(KEY, 'http://x')), KEY, live);
  assert.equal(admin.granted && admin.revocable, false);
  const header = await decideFileAccess(
    requestOf('http://x/files/a', { 'x-api-token': 'admin-token-0123456789' }),
    KEY,
    live,
  );
  assert.equal(header.granted && header.revocable, false);
  const revoked = await decideFileAccess(
    requestOf(signer.sign(KEY, 'http://x', GRANT)),
    KEY,
    options(() => Promise.resolve(false)),
  );
  assert.equal(revoked.granted, false);
});
