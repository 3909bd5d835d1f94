// The uploads of the soak benchmark: multipart without a key (sent once), multipart with an Idempotency-Key and tus
// followed by `{upload_id}` (both retried with the same key or id until acknowledged), alternating between serves.
import fs from 'node:fs';
import path from 'node:path';
import { multipartForm } from '../test/helpers/multipart.ts';
import { tusClient, uploadIdOf } from '../test/helpers/tus-client.ts';
import { sleep } from '../test/system/service-process.ts';

/** How one upload is sent. */
export type UploadKind = 'multipart' | 'keyed multipart' | 'tus';

/** One upload attempt and what became of it. */
export interface Upload {
  index: number;
  /** `soak-<seed>-<index>`: begins the model's name and the file name, to find every model it made. */
  marker: string;
  kind: UploadKind;
  file: string;
  /** HTTP requests sent for it, retries included. */
  requests: number;
  /** The model id of the answer that acknowledged it; unset when none did. */
  modelId?: string;
  /** Why it ended unacknowledged. */
  error?: string;
}

/** How long an upload keeps retrying before giving up unacknowledged. */
const RETRY_FOR_MS = 240_000;
/** A request that has not answered by then counts as failed (a frozen backend answers within 20 s). */
const REQUEST_MS = 90_000;

/** A failure worth retrying with the same key: no answer, a 5xx, 409 (a copy in flight) or 429. */
class Retryable extends Error {}

/** The answer of a model-making request: the model id, or a Retryable or final error. */
async function modelIdOf(response: Response): Promise<string> {
  const text = await response.text();
  if (response.status === 200 || response.status === 201) {
    return (JSON.parse(text) as { data: { id: string } }).data.id;
  }
  const failure = `${response.status} ${text.slice(0, 200)}`;
  if (response.status >= 500 || response.status === 409 || response.status === 429)
    throw new Retryable(failure);
  throw new Error(failure);
}

/** `promise`, or a Retryable once `ms` passed without it settling. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Retryable(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `send` against serve `first`, then the other, turn about, while it throws a Retryable (or the network
 * fails), with a growing pause, for at most RETRY_FOR_MS; `once` sends a single request.
 */
async function retrying<T>(
  upload: Upload,
  urls: string[],
  first: number,
  send: (url: string) => Promise<T>,
  once = false,
): Promise<T> {
  const deadline = Date.now() + RETRY_FOR_MS;
  for (let attempt = 0; ; attempt++) {
    upload.requests++;
    try {
      return await within(send(urls[(first + attempt) % urls.length]), REQUEST_MS);
    } catch (error) {
      // fetch fails with a TypeError when the connection is refused or dropped, a TimeoutError past its signal's time.
      const retryable =
        error instanceof Retryable ||
        error instanceof TypeError ||
        (error instanceof Error && error.name === 'TimeoutError');
      if (once || !retryable || Date.now() > deadline) throw error;
    }
    await sleep(Math.min(5000, 500 * 2 ** attempt));
  }
}

/** Sends `upload` to the serves at `urls` (starting with `urls[first]`) and records the model id that acknowledged it. */
export async function sendUpload(
  upload: Upload,
  urls: string[],
  first: number,
  token: string,
): Promise<void> {
  const data = fs.readFileSync(upload.file);
  const filename = `${upload.marker}-${path.basename(upload.file)}`;
  const name = `${upload.marker} ${path.basename(upload.file)}`;
  const auth = { 'x-api-token': token };
  try {
    if (upload.kind === 'tus') {
      // No model exists before the upload is finished, so any failure here just starts a new upload.
      const uploadId = await retrying(upload, urls, first, async (url) => {
        try {
          const tus = tusClient(url, auth);
          const created = await tus.create(data.length, { filename });
          if (created.status !== 201) throw new Error(`tus create ${created.status} ${created.text}`);
          upload.requests++;
          const patched = await tus.patch(created.location, 0, data);
          if (patched?.status !== 204) throw new Error(`tus patch ${patched?.status ?? 'no answer'}`);
          return uploadIdOf(created.location);
        } catch (error) {
          // The tus client's requests fail with node's own errors (ECONNREFUSED, socket hang up), not fetch's.
          throw new Retryable(error instanceof Error ? error.message : String(error));
        }
      });
      upload.modelId = await retrying(upload, urls, first + 1, async (url) =>
        modelIdOf(
          await fetch(`${url}/api/models`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ upload_id: uploadId, name }),
            signal: AbortSignal.timeout(REQUEST_MS),
          }),
        ),
      );
      return;
    }
    const form = multipartForm({ name }, { field: 'file', filename, data });
    const key = upload.kind === 'keyed multipart' ? { 'idempotency-key': upload.marker } : undefined;
    upload.modelId = await retrying(
      upload,
      urls,
      first,
      async (url) =>
        modelIdOf(
          await fetch(`${url}/api/models`, {
            method: 'POST',
            headers: { ...auth, ...form.headers, ...key },
            body: new Uint8Array(form.payload),
            signal: AbortSignal.timeout(REQUEST_MS),
          }),
        ),
      key === undefined,
    );
  } catch (error) {
    upload.error =
      error instanceof Error ? `${error.message} ${String(error.cause ?? '')}`.trim() : String(error);
  }
}
