import { Readable } from 'node:stream';
import { weakEtag } from '../http/etag.ts';
import { DEFAULT_MATERIAL } from './default-material.ts';
import { bufferBody } from './lookup-body.ts';
import { createLookupCache, type CachedLookup } from './lookup-cache.ts';
import { buildLookupResponse, type LookupResponse } from './lookup-response.ts';
import { createMaterialReplyCache, type KeptMaterialReply } from './material-reply-cache.ts';
import { refreshKeptLookup } from './refresh-kept-lookup.ts';
import type { MaterialRepository } from './repository.ts';
import type { Material } from './schemas.ts';

/** What the parser is given in place of a request whose reply is kept: the smallest body the schema accepts. */
const KEPT_REPLY_STAND_IN = Buffer.from('{"group_ids":["kept"]}');

/** A bulk lookup request as its route hands it over once parsed. */
export interface LookupRequest {
  group_ids: readonly string[];
  include_default?: boolean;
  configuration_id?: string;
}

/** The headers of a lookup request that decide whether and how its bytes are read ahead of the parser. */
export interface LookupHeaders {
  'content-type'?: string;
  'content-length'?: string;
}

/**
 * The material service's read side, owning what is kept between requests: bulk lookup replies by their exact
 * request bytes, brought up to the current material generation (as they are, or patched with the few groups that
 * changed), and serialized single-material replies while the generation holds. The routes only hand requests in.
 */
export interface MaterialReads {
  /**
   * Reads a lookup request's body ahead of the parser when replies are kept, and returns what the parser should
   * read: the bytes as they came, or a one-group stand-in when a kept reply answers them (those bytes passed every
   * check when the reply was made), so that a viewer reopening a model costs one hash and one read.
   */
  receiveLookup(
    request: object,
    headers: LookupHeaders,
    payload: AsyncIterable<Buffer>,
  ): Promise<AsyncIterable<Buffer>>;
  /**
   * The reply to a parsed lookup request: the kept one, or one read now (and kept for the same bytes); undefined
   * when it names a configuration that does not exist.
   */
  answerLookup(request: object, body: LookupRequest): Promise<LookupResponse | undefined>;
  /**
   * A material's reply serialized by `serialize`, with its tag: kept while the material generation holds, read
   * anew otherwise; null when there is no such material, undefined where the generation costs as much to read
   * as the row (PostgreSQL), in which case the caller reads the row itself.
   */
  materialReply(
    id: number,
    serialize: (material: Material) => string,
  ): Promise<KeptMaterialReply | null | undefined>;
}

/** Options of {@link createMaterialReads}. */
export interface MaterialReadsOptions {
  repository: MaterialRepository;
  /** Bytes of bulk lookup replies kept per process for repeated requests; 0 keeps none. */
  lookupCacheBytes: number;
  /** Largest lookup request body, in bytes (413 beyond it, as the parser would answer). */
  bodyLimit: number;
}

/** Creates the read side over a repository. */
export function createMaterialReads({
  repository,
  lookupCacheBytes,
  bodyLimit,
}: MaterialReadsOptions): MaterialReads {
  const lookups = createLookupCache(lookupCacheBytes);
  const materialReplies = createMaterialReplyCache();
  // Per request, between the body read and the handler: the kept reply to send, or the key to keep a new one under.
  const received = new WeakMap<object, { kept: CachedLookup } | { key: string; bytes: Buffer }>();

  return {
    async receiveLookup(request, headers, payload) {
      if (lookupCacheBytes === 0 || !/^application\/json\b/i.test(headers['content-type'] ?? ''))
        return payload;
      const bytes = await bufferBody(payload, headers['content-length'], bodyLimit);
      const key = lookups.keyOf(bytes);
      const kept = lookups.get(key, bytes);
      const current = kept && (await refreshKeptLookup(kept, repository));
      if (current) {
        if (current !== kept) lookups.set(key, current);
        received.set(request, { kept: current });
        // Fastify checks the bytes it parses against Content-Length unless told how many really arrived.
        return Object.assign(Readable.from([KEPT_REPLY_STAND_IN]), { receivedEncodedLength: bytes.length });
      }
      received.set(request, { key, bytes });
      return Readable.from([bytes]);
    },

    async answerLookup(request, body) {
      const state = received.get(request);
      if (state && 'kept' in state) return state.kept.response;
      const groupIds = [...new Set(body.group_ids)];
      const includeDefault = body.include_default === true;
      const configurationId = body.configuration_id;
      const read =
        configurationId === undefined
          ? await repository.lookup(groupIds)
          : await repository.lookupConfigured(groupIds, configurationId);
      if (!read) return undefined;
      const { generation, bound } = read;
      const response = buildLookupResponse(groupIds, bound, includeDefault ? DEFAULT_MATERIAL : undefined);
      if (state) {
        const entry = { request: state.bytes, generation, includeDefault, response };
        lookups.set(state.key, configurationId === undefined ? entry : { ...entry, configurationId });
      }
      return response;
    },

    async materialReply(id, serialize) {
      // Read before the row, so that a reply kept under it is at least as new as the generation says.
      const generation = repository.localGeneration();
      if (generation === undefined) return undefined;
      const kept = materialReplies.get(id, generation);
      if (kept) return kept;
      const material = await repository.get(id);
      if (!material) return null;
      const body = serialize(material);
      const reply = { generation, body, etag: weakEtag(body) };
      materialReplies.set(id, reply);
      return reply;
    },
  };
}
