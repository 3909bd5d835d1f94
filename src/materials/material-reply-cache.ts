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
export class MaterialReplyCache {
  readonly #replies = new Map<number, KeptMaterialReply>();

  constructor(private readonly maxReplies = MAX_KEPT_MATERIAL_REPLIES) {}

  /** The reply kept for the material at this generation, if any. */
  get(id: number, generation: number): KeptMaterialReply | undefined {
    const kept = this.#replies.get(id);
    return kept?.generation === generation ? kept : undefined;
  }

  /** Keeps a reply; the generation must have been read before the row it was made from. */
  set(id: number, reply: KeptMaterialReply): void {
    this.#replies.delete(id);
    if (this.#replies.size >= this.maxReplies) this.#replies.delete(this.#replies.keys().next().value!);
    this.#replies.set(id, reply);
  }
}
