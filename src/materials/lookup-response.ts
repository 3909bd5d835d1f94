import { createHash } from 'node:crypto';
import { MATERIAL_NUMBER_FIELDS, type DefaultMaterial, type Material } from './schemas.ts';

/** A material an entry can show: a bound one or the default. */
export type ShownMaterial = Material | Readonly<DefaultMaterial>;

const HEAD = Buffer.from('{"code":0,"message":"success","data":[');
const TAIL = Buffer.from(']}');
// Every entry is kept with a leading comma, so that any entry can move to the front or away from it; the reply
// leaves out the first entry's comma, since HEAD ends with the array's bracket.
const ENTRY_OPEN = Buffer.from(',{"group_id":');
const MATERIAL = Buffer.from(',"material":');
const CLOSE = Buffer.from('}');
const COMMA = Buffer.from(',');

/** What `shown` holds for a group without an entry (unbound, and the default not asked for). */
const NO_ENTRY = 0;

/** A patched reply is copied into one buffer once it is spread over more pieces than this. */
const MAX_PIECES = 256;

/**
 * A bulk lookup answer (`{"code":0,"message":"success","data":[{group_id, material}…]}`) with what it was made
 * from, so that a change to a few of its groups is patched in without reading or writing the rest.
 */
export interface LookupResponse {
  /** The unique requested group ids, in request order. */
  readonly groupIds: readonly string[];
  /** Per group, the id of the material its entry shows (the default's is -1), or 0 for no entry. */
  readonly shown: Float64Array;
  /** The JSON of each material an entry shows, by id. */
  readonly materialJson: ReadonlyMap<number, Buffer>;
  /** The entries, each with its leading comma, as pieces; entry i spans `offsets[i]` to `offsets[i + 1]`. */
  readonly pieces: readonly Buffer[];
  readonly offsets: Float64Array;
  /** The whole reply in one buffer, when it was written in one piece. */
  readonly whole: Buffer | undefined;
  /** Bytes of the reply. */
  readonly size: number;
  /** SHA-1 of the group id list, which the entity tag starts from. */
  readonly idsDigest: string;
  /** A weak entity tag derived from the group ids and what each entry shows, not by hashing 30 MB of reply. */
  readonly etag: string;
}

/**
 * The answer for `groupIds` in their order: each group's bound material, else `fallback`, else no entry.
 * 100,000 entries usually share a handful of materials, so each distinct material is serialized once and its
 * bytes copied, and the reply is written straight into one buffer of the exact size.
 */
export function buildLookupResponse(
  groupIds: readonly string[],
  bound: ReadonlyMap<string, ShownMaterial>,
  fallback: ShownMaterial | undefined,
): LookupResponse {
  const count = groupIds.length;
  const shown = new Float64Array(count);
  const materialJson = new Map<number, Buffer>();
  const quotedIds: string[] = new Array<string>(count);
  const offsets = new Float64Array(count + 1);
  let entriesSize = 0;
  for (let i = 0; i < count; i++) {
    offsets[i] = entriesSize;
    const groupId = groupIds[i]!;
    const material = bound.get(groupId) ?? fallback;
    if (!material) continue;
    shown[i] = material.id;
    let json = materialJson.get(material.id);
    if (json === undefined) materialJson.set(material.id, (json = Buffer.from(materialText(material))));
    quotedIds[i] = JSON.stringify(groupId);
    entriesSize += entrySize(quotedIds[i]!, json);
  }
  offsets[count] = entriesSize;

  const whole = Buffer.allocUnsafe(replySize(entriesSize));
  HEAD.copy(whole, 0);
  // Entries are written from the bracket on, so the first one's comma lands on it and is put back below.
  let at = HEAD.length - 1;
  for (let i = 0; i < count; i++) {
    if (shown[i] === NO_ENTRY) continue;
    at = writeEntry(whole, at, quotedIds[i]!, materialJson.get(shown[i]!)!);
  }
  whole[HEAD.length - 1] = HEAD[HEAD.length - 1]!;
  TAIL.copy(whole, whole.length - TAIL.length);
  const pieces = entriesSize === 0 ? [] : [COMMA, whole.subarray(HEAD.length, HEAD.length + entriesSize - 1)];
  const idsDigest = createHash('sha1').update(JSON.stringify(groupIds)).digest('base64url');
  return {
    groupIds,
    shown,
    materialJson,
    pieces,
    offsets,
    whole,
    size: whole.length,
    idsDigest,
    etag: lookupEtag(idsDigest, shown, materialJson),
  };
}

/**
 * The answer with the entries of some groups replaced: `updates` maps a group's index to the material its entry
 * now shows (undefined for no entry). The unchanged entries are not copied: the new answer's pieces are views of
 * the old one's, until there are too many of them.
 */
export function patchLookupResponse(
  response: LookupResponse,
  updates: ReadonlyMap<number, ShownMaterial | undefined>,
): LookupResponse {
  const { groupIds, offsets } = response;
  const count = groupIds.length;
  const shown = response.shown.slice();
  const known = new Map(response.materialJson);
  const replaced = new Map<number, Buffer>();
  for (const [index, material] of updates) {
    shown[index] = material?.id ?? NO_ENTRY;
    // Fields may have changed: every entry showing a changed material is among the updates.
    if (material && !replaced.has(material.id))
      replaced.set(material.id, Buffer.from(materialText(material)));
  }
  for (const [id, json] of replaced) known.set(id, json);

  const order = [...updates.keys()].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  const newOffsets = new Float64Array(count + 1);
  let copiedUpTo = 0;
  let shift = 0;
  let next = 0;
  for (let i = 0; i <= count; i++) {
    newOffsets[i] = offsets[i]! + shift;
    if (i === count || order[next] !== i) continue;
    next++;
    pieces.push(...slicePieces(response.pieces, copiedUpTo, offsets[i]!));
    copiedUpTo = offsets[i + 1]!;
    let size = 0;
    if (shown[i] !== NO_ENTRY) {
      const quoted = JSON.stringify(groupIds[i]);
      const json = known.get(shown[i]!)!;
      const entry = Buffer.allocUnsafe(entrySize(quoted, json));
      writeEntry(entry, 0, quoted, json);
      pieces.push(entry);
      size = entry.length;
    }
    shift += size - (offsets[i + 1]! - offsets[i]!);
  }
  pieces.push(...slicePieces(response.pieces, copiedUpTo, offsets[count]!));

  const used = new Set<number>(shown);
  const materialJson = new Map([...known].filter(([id]) => used.has(id)));
  const entriesSize = newOffsets[count]!;
  return {
    groupIds,
    shown,
    materialJson,
    pieces: pieces.length > MAX_PIECES ? [Buffer.concat(pieces, entriesSize)] : pieces,
    offsets: newOffsets,
    whole: undefined,
    size: replySize(entriesSize),
    idsDigest: response.idsDigest,
    etag: lookupEtag(response.idsDigest, shown, materialJson),
  };
}

/** The reply's bytes as a list of buffers, in order. */
export function lookupResponseChunks(response: LookupResponse): Buffer[] {
  if (response.whole) return [response.whole];
  const entriesSize = response.offsets[response.groupIds.length]!;
  return [HEAD, ...slicePieces(response.pieces, Math.min(1, entriesSize), entriesSize), TAIL];
}

/** Bytes of the reply as a whole: the bracket stands for the first entry's comma. */
function replySize(entriesSize: number): number {
  return HEAD.length + Math.max(0, entriesSize - 1) + TAIL.length;
}

function entrySize(quotedId: string, materialJson: Buffer): number {
  return (
    ENTRY_OPEN.length + Buffer.byteLength(quotedId) + MATERIAL.length + materialJson.length + CLOSE.length
  );
}

function writeEntry(target: Buffer, at: number, quotedId: string, materialJson: Buffer): number {
  at += ENTRY_OPEN.copy(target, at);
  at += target.write(quotedId, at);
  at += MATERIAL.copy(target, at);
  at += materialJson.copy(target, at);
  return at + CLOSE.copy(target, at);
}

/** Views of the bytes from `start` to `end` of the concatenation of `pieces`. */
function slicePieces(pieces: readonly Buffer[], start: number, end: number): Buffer[] {
  const views: Buffer[] = [];
  let at = 0;
  for (const piece of pieces) {
    const pieceEnd = at + piece.length;
    if (pieceEnd > start && at < end) {
      views.push(piece.subarray(Math.max(0, start - at), Math.min(piece.length, end - at)));
    }
    if (pieceEnd >= end) break;
    at = pieceEnd;
  }
  return views;
}

/** The tag of a reply: the same ids showing the same materials give the same tag, however the reply was made. */
function lookupEtag(
  idsDigest: string,
  shown: Float64Array,
  materialJson: ReadonlyMap<number, Buffer>,
): string {
  const hash = createHash('sha1').update(idsDigest).update(shown);
  for (const id of [...materialJson.keys()].sort((a, b) => a - b))
    hash.update(`${id}:`).update(materialJson.get(id)!);
  return `W/"${hash.digest('base64url')}"`;
}

// The fields in the order of MaterialSchema, and only those, as the schema-driven serializer writes them.
function materialText(material: ShownMaterial): string {
  const ordered: Record<string, unknown> = { id: material.id, name: material.name };
  for (const field of MATERIAL_NUMBER_FIELDS) ordered[field] = material[field];
  if ('created_at' in material) {
    ordered.created_at = material.created_at;
    ordered.updated_at = material.updated_at;
  }
  return JSON.stringify(ordered);
}
