import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Db, ModelRow } from '../../db/database.ts';
import { TOKEN_HEADER } from '../../http/auth/token-checker.ts';
import { ApiError } from '../../http/api-error.ts';
import type { FormFile } from '../../uploads/schemas.ts';

/**
 * What identifies the request that makes a model, so that a retry of it (its answer lost, or a failure after the
 * model was committed) finds the model instead of making a second one.
 */
export type RequestKey =
  | {
      /** A finished resumable upload: its client-visible `upload_id` makes at most one model, ever. */
      kind: 'upload';
      uploadId: string;
    }
  | {
      /** A multipart request sent with an `Idempotency-Key` header. */
      kind: 'idempotency';
      /** Hex SHA-256 of the token and the key (see {@link idempotencyKeyOf}); the key of one token only. */
      key: string;
      /** Hex SHA-256 of what the request carried (see {@link formFingerprint}). */
      fingerprint: string;
      /** ISO time before which a model made under the key no longer counts (the retention window's start). */
      since: string;
    };

/** Request header naming a multipart upload's idempotency key (IETF draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Response header set on an answer that repeats an earlier request's model instead of making one. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** Answer to a key that is not a string of 1 to 255 visible ASCII characters. */
export const BAD_IDEMPOTENCY_KEY = 'Idempotency-Key must be 1 to 255 visible ASCII characters';
/** Answer to a key reused with a request other than the one it first came with (422, as the IETF draft says). */
export const IDEMPOTENCY_KEY_REUSED =
  'Idempotency-Key was already used with a different request; use a new key for a new upload';

/** Thrown by the catalog when the unique index shows a concurrent copy of the request made the model first. */
export class ModelMadeAlready extends Error {
  override readonly name = 'ModelMadeAlready';

  constructor(readonly row: ModelRow) {
    super(`model ${row.id} was already made by this request`);
  }
}

/**
 * The request's idempotency key bound to its token, or undefined without the header. The header's value is a
 * structured-field string (`"abc"`) by the draft; a bare value is taken as it is, as most clients send it.
 */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new ApiError(400, BAD_IDEMPOTENCY_KEY);
  const quoted = /^"(.*)"$/.exec(header);
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : header;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw new ApiError(400, BAD_IDEMPOTENCY_KEY);
  // Scoped to the token (its secret hashed, never stored): another token's key never answers this one's model.
  const token = request.headers[TOKEN_HEADER];
  return sha256([typeof token === 'string' ? token : '', key]);
}

/**
 * What a multipart upload carried: its text fields and each file's name, size and CRC-32 (counted as the file
 * arrived, so a 1 GiB body is not read again). Enough to tell a retry from a different upload sent by mistake
 * under the same key; not a guard against a forger, who would need the token anyway.
 */
export function formFingerprint(files: readonly FormFile[], fields: Record<string, string>): string {
  const fieldParts = Object.keys(fields)
    .sort()
    .map((name) => `field:${name}=${fields[name]}`);
  const fileParts = files.map((file) => `file:${file.relativeName}:${file.size}:${file.crc32}`);
  return sha256([...fieldParts, ...fileParts]);
}

/** The model the keyed request made already, or undefined (a key older than its window counts as unused). */
export async function findModelMadeBy(db: Db, key: RequestKey): Promise<ModelRow | undefined> {
  let query = db.selectFrom('models').selectAll();
  query =
    key.kind === 'upload'
      ? query.where('upload_id', '=', key.uploadId)
      : query.where('idempotency_key', '=', key.key).where('created_at', '>=', key.since);
  return query.executeTakeFirst();
}

/** The columns a new model made by the keyed request carries. */
export function requestKeyColumns(
  key: RequestKey | undefined,
): Pick<ModelRow, 'upload_id' | 'idempotency_key' | 'request_fingerprint'> {
  if (key?.kind === 'upload')
    return { upload_id: key.uploadId, idempotency_key: null, request_fingerprint: null };
  if (key?.kind === 'idempotency')
    return { upload_id: null, idempotency_key: key.key, request_fingerprint: key.fingerprint };
  return { upload_id: null, idempotency_key: null, request_fingerprint: null };
}

/**
 * Frees a key whose retention window ended, so the unique index lets a new request use it; the old model keeps
 * everything but the key. Runs in the transaction that makes the new model.
 */
export async function releaseExpiredKey(trx: Db, key: RequestKey | undefined): Promise<void> {
  if (key?.kind !== 'idempotency') return;
  await trx
    .updateTable('models')
    .set({ idempotency_key: null, request_fingerprint: null })
    .where('idempotency_key', '=', key.key)
    .where('created_at', '<', key.since)
    .execute();
}

/** True for the error a unique index raises, on PostgreSQL (23505) and SQLite. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

function sha256(parts: readonly string[]): string {
  const hash = createHash('sha256');
  // Length-prefixed, so no two different lists of parts hash the same bytes.
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:${part}\n`);
  return hash.digest('hex');
}
