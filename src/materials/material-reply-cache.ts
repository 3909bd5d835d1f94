/** A serialized `GET /materials/:id` reply, good while the material generation it was read at holds. */
export interface KeptMaterialReply {
  generation: number;
  body: string;
  etag: string;
}

/** Most replies kept: a material's reply is about 360 bytes, so at most a few MB. */
export const MAX_KEPT_MATERIAL_REPLIES = 10_000;

/**
 * Serialized single-material replies by material id. A read checks the material generation (one small SQLite
 * read, a third of the row's) instead of reading, converting, serializing and hashing the row again; any change
 * that could alter a reply moves the generation (see the 2026-11-25 migration). Past the bound the oldest go first.
 */
export interface MaterialReplyCache {
  /** The reply kept for the material at this generation, if any. */
  get(id: number, generation: number): KeptMaterialReply | undefined;
  /** Keeps a reply; its generation must have been read before the row it was made from. */
  set(id: number, reply: KeptMaterialReply): void;
}

/** A cache of at most `maxReplies` material replies. */
export function createMaterialReplyCache(maxReplies = MAX_KEPT_MATERIAL_REPLIES): MaterialReplyCache {
  const replies = new Map<number, KeptMaterialReply>();
  return {
    get(id, generation) {
      const kept = replies.get(id);
      return kept?.generation === generation ? kept : undefined;
    },
    set(id, reply) {
      replies.delete(id);
      if (replies.size >= maxReplies) replies.delete(replies.keys().next().value!);
      replies.set(id, reply);
    },
  };
}
