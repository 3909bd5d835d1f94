import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.ts';
import { nulMessage } from '../http/refuse-nul.ts';
import type { FormFile, ReceivedForm, ReceiveFormOptions } from './schemas.ts';

/** The answer to a form with more files than {@link ReceiveFormOptions.maxFiles}. */
export function tooManyFiles(maxFiles: number): string {
  return `Too many files: at most ${maxFiles} per upload; zip the model with its files and upload the zip instead`;
}

// Text fields (name, description) are small; this bounds what a hostile form can make the server hold.
const MAX_FIELD_BYTES = 64 * 1024;

/** The answer to a multipart body that ends early or cannot be parsed. */
export const MALFORMED_MULTIPART = 'Malformed multipart body';

// busboy reports a broken body with plain Errors, which would otherwise read as server faults (500).
const MALFORMED_WORDING =
  /Unexpected end of (form|multipart data)|terminated early|Malformed part header|Boundary not found/i;

/** True for the errors a cut-off or garbled multipart body raises while it is parsed or streamed. */
function isMalformedBody(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // A file stream that busboy destroys when the body ends inside it makes pipeline reject with premature close.
  return (
    code === 'ERR_STREAM_PREMATURE_CLOSE' || (typeof message === 'string' && MALFORMED_WORDING.test(message))
  );
}

/**
 * Streams the files of one file field of a multipart request straight to temporary files (never a whole file in
 * memory), counting their bytes and CRC-32 as they go, and collects the text fields. Other file fields are read
 * and dropped.
 */
export async function receiveForm(
  request: FastifyRequest,
  options: ReceiveFormOptions,
): Promise<ReceivedForm> {
  const fields: Record<string, string> = {};
  const files: FormFile[] = [];
  const maxFiles = options.maxFiles ?? 1;
  if (!request.isMultipart()) return { file: undefined, files, fields };
  await fsp.mkdir(options.tmpDir, { recursive: true });
  let total = 0;
  try {
    const parts = request.parts({
      // Folders are kept in the names (busboy would cut them off) so a model's `textures/a.png` stays apart
      // from another folder's `a.png`; relativeFileName judges them.
      preservePath: true,
      limits: {
        fileSize: options.maxBytes,
        fieldSize: MAX_FIELD_BYTES,
        fields: 20,
        // One more than allowed, so the extra file reaches the loop and gets a clear answer.
        files: Math.max(5, maxFiles + 1),
        parts: 30 + maxFiles,
      },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (typeof part.value !== 'string') continue;
        if (part.value.includes('\0')) throw new ApiError(400, nulMessage(part.fieldname));
        fields[part.fieldname] = part.value;
        continue;
      }
      if (part.filename.includes('\0')) throw new ApiError(400, nulMessage(`${part.fieldname} name`));
      if (part.fieldname !== options.fileField || (maxFiles === 1 && files.length === 1)) {
        part.file.resume();
        continue;
      }
      if (files.length === maxFiles) throw new ApiError(413, tooManyFiles(maxFiles));
      const relativeName = relativeFileName(part.filename);
      const target = path.join(options.tmpDir, `${randomUUID()}.upload`);
      let size = 0;
      let crc = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          total += chunk.length;
          crc = crc32(chunk, crc);
          if (total > options.maxBytes) callback(new ApiError(413, 'File too large'));
          else callback(null, chunk);
        },
      });
      // When the whole body arrived at once, busboy may have destroyed the stream already, and pipeline would
      // then wait forever on it (the request never answered).
      if (part.file.destroyed && !part.file.readableEnded) throw new ApiError(400, MALFORMED_MULTIPART);
      try {
        await pipeline(part.file, counter, fs.createWriteStream(target));
      } catch (error) {
        await fsp.rm(target, { force: true });
        throw error;
      }
      if (part.file.truncated) {
        await fsp.rm(target, { force: true });
        throw new ApiError(413, 'File too large');
      }
      files.push({
        path: target,
        filename: path.posix.basename(relativeName),
        relativeName,
        size,
        crc32: crc,
      });
    }
  } catch (error) {
    await Promise.all(files.map((file) => fsp.rm(file.path, { force: true })));
    if (!(error instanceof ApiError) && isMalformedBody(error)) throw new ApiError(400, MALFORMED_MULTIPART);
    throw error;
  }
  return { file: files[0], files, fields };
}

/**
 * The client's file name as a relative path that stays inside the upload: `\` read as `/` (Windows), a drive or
 * leading `/` ignored, empty, `.` and `..` segments dropped (a lone file always kept only its base name, so
 * `../../etc/truck.glb` was never refused). An empty name becomes `upload`, as before.
 */
function relativeFileName(raw: string): string {
  const segments = raw
    .replace(/\\/g, '/')
    .replace(/^[a-zA-Z]:\//, '')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..');
  return segments.join('/') || 'upload';
}
