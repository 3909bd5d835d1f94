import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './api-error.ts';
import { nulMessage } from './refuse-nul.ts';

/** A file received from a multipart request, on local disk. */
export interface ReceivedFile {
  /** Temporary file holding the bytes; the caller moves or removes it. */
  path: string;
  /** The name the client gave, without folders. */
  filename: string;
  size: number;
}

/** What a multipart request carried: the one file (if any) and the text fields. */
export interface ReceivedForm {
  file: ReceivedFile | undefined;
  fields: Record<string, string>;
}

/** Limits of {@link receiveForm}. */
export interface ReceiveFormOptions {
  /** Form field that carries the file. */
  fileField: string;
  /** Largest file accepted; beyond it the request fails with 413 `File too large`. */
  maxBytes: number;
  /** Folder for the temporary file. */
  tmpDir: string;
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
 * Streams one file field of a multipart request straight to a temporary file (never the whole file in memory),
 * counting its bytes as it goes, and collects the text fields. Other file fields are read and dropped.
 */
export async function receiveForm(
  request: FastifyRequest,
  options: ReceiveFormOptions,
): Promise<ReceivedForm> {
  const fields: Record<string, string> = {};
  let file: ReceivedFile | undefined;
  if (!request.isMultipart()) return { file, fields };
  await fsp.mkdir(options.tmpDir, { recursive: true });
  try {
    const parts = request.parts({
      limits: { fileSize: options.maxBytes, fieldSize: MAX_FIELD_BYTES, fields: 20, files: 5, parts: 30 },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (typeof part.value !== 'string') continue;
        if (part.value.includes('\0')) throw new ApiError(400, nulMessage(part.fieldname));
        fields[part.fieldname] = part.value;
        continue;
      }
      if (part.filename.includes('\0')) throw new ApiError(400, nulMessage(`${part.fieldname} name`));
      if (part.fieldname !== options.fileField || file) {
        part.file.resume();
        continue;
      }
      const target = path.join(options.tmpDir, `${randomUUID()}.upload`);
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          callback(null, chunk);
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
      file = {
        path: target,
        filename: path.basename(part.filename || 'upload'),
        size,
      };
    }
  } catch (error) {
    if (file) await fsp.rm(file.path, { force: true });
    if (!(error instanceof ApiError) && isMalformedBody(error)) throw new ApiError(400, MALFORMED_MULTIPART);
    throw error;
  }
  return { file, fields };
}
