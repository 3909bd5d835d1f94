/**
 * Model upload. One file goes through the resumable upload endpoint (tus): in chunks that are retried after a
 * dropped connection, and an upload cut by a page reload continues where it stopped when the same file is
 * chosen again (tus-js-client keeps its address in localStorage under the file's fingerprint). A model with its
 * resources (a .gltf with its .bin and images, an .obj with its .mtl and textures) goes as several `file` fields
 * of one multipart request, which the server keeps together, sent again under its `Idempotency-Key` when the
 * connection drops.
 */
import { DetailedError, Upload } from 'tus-js-client';
import { ApiError, errorFromBody } from './api-error.ts';
import { request } from './http.ts';
import { newIdempotencyKey } from './idempotency-key.ts';
import { getToken } from './token.ts';
import type { Model } from './types.ts';

/** What the person typed or chose next to the file; all optional (blank: the server's default). */
export interface UploadFields {
  name?: string;
  description?: string;
  /** Length unit of a file that states none. */
  unit?: string;
  /** Up axis of a file that states none. */
  up?: string;
}

/** A file of a several-file upload, with the path it had in a chosen or dropped folder (`Box/textures/a.png`). */
export interface UploadPart {
  file: File;
  relativePath: string;
}

/** Progress reports of {@link uploadModel}. */
export interface UploadProgress {
  /** The fraction of the file's bytes the server holds (0–1). */
  onProgress: (fraction: number) => void;
  /** Called once when an earlier, unfinished upload of the same file is found and continued. */
  onResuming?: () => void;
}

/** Bytes per PATCH: small enough that a lost connection costs little, large enough to keep requests few. */
const CHUNK_BYTES = 8 * 1024 * 1024;
/** Waits before each retry of a failed chunk; after the last one the upload fails and can be resumed later. */
const RETRY_DELAYS_MS = [0, 1000, 3000, 5000, 10_000, 20_000, 30_000];

/** Uploads a model file resumably, then asks the catalog to make it a model. */
export async function uploadModel(
  file: File,
  fields: UploadFields,
  progress: UploadProgress,
): Promise<Model> {
  const uploadId = await sendResumably(file, progress);
  const answer = (await request('/api/models', {
    method: 'POST',
    body: {
      upload_id: uploadId,
      name: fields.name || undefined,
      description: fields.description || undefined,
      unit: fields.unit || undefined,
      up: fields.up || undefined,
    },
  })) as { data: Model };
  progress.onProgress(1);
  return answer.data;
}

/**
 * Uploads a model with its resources in one multipart request, each file a `file` field named with its folder,
 * reporting the bytes sent (XMLHttpRequest: fetch reports no upload progress). The request carries an
 * `Idempotency-Key` made for this upload, and is sent again under the same key after a dropped connection or a
 * passing outage (502–504), so a request whose answer was lost makes no second model: the server answers the
 * first (200, `Idempotent-Replayed`).
 */
export async function uploadModelFiles(
  parts: readonly UploadPart[],
  fields: UploadFields,
  progress: UploadProgress,
): Promise<Model> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) if (value) form.append(key, value);
  for (const part of parts) form.append('file', part.file, part.relativePath);
  const key = newIdempotencyKey();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await sendForm(form, key, progress);
    } catch (error) {
      const delay = MULTIPART_RETRY_DELAYS_MS[attempt];
      if (delay === undefined || !(error instanceof ApiError) || !RETRIED_STATUSES.has(error.status))
        throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Waits before each new sending of a multipart upload; the whole body goes again, so they are few. */
const MULTIPART_RETRY_DELAYS_MS = [1000, 3000, 10_000];
/** Failures worth sending the same request again for: no answer (0), and a proxy or server briefly away. */
const RETRIED_STATUSES = new Set([0, 502, 503, 504]);

/** One sending of a multipart upload under `key`; resolves with the model made (201) or replayed (200). */
function sendForm(form: FormData, key: string, progress: UploadProgress): Promise<Model> {
  return postForm<Model>('/api/models', form, progress, { 'Idempotency-Key': key });
}

/**
 * Posts a multipart form to a catalog route, reporting the bytes sent (XMLHttpRequest: fetch reports no upload
 * progress); resolves with the `data` of a 2xx answer, rejects with the server's message otherwise.
 */
export function postForm<T>(
  path: string,
  form: FormData,
  progress: UploadProgress,
  headers: Record<string, string> = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('X-API-Token', getToken() ?? '');
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) progress.onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300 && body) {
        progress.onProgress(1);
        resolve((body as { data: T }).data);
      } else {
        reject(errorFromBody(xhr.status, body, `Upload failed (HTTP ${xhr.status})`));
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'Upload failed: cannot reach the server')));
    xhr.send(form);
  });
}

/** Sends the file's bytes (continuing an earlier upload of it when there is one); resolves with the upload id. */
function sendResumably(file: File, progress: UploadProgress): Promise<string> {
  return new Promise((resolve, reject) => {
    const upload = new Upload(file, {
      // tus-js-client resolves the server's relative Location against this, so it must be absolute.
      endpoint: new URL('/api/uploads', window.location.href).href,
      chunkSize: CHUNK_BYTES,
      retryDelays: RETRY_DELAYS_MS,
      metadata: { filename: file.name, filetype: file.type },
      headers: { 'X-API-Token': getToken() ?? '' },
      removeFingerprintOnSuccess: true,
      onProgress: (sent, total) => progress.onProgress(total > 0 ? sent / total : 0),
      onSuccess: () => resolve((upload.url ?? '').slice((upload.url ?? '').lastIndexOf('/') + 1)),
      onError: (error) => reject(uploadError(error)),
    });
    upload
      .findPreviousUploads()
      .then((previous) => {
        const latest = previous.sort((a, b) => b.creationTime.localeCompare(a.creationTime))[0];
        if (latest) {
          upload.resumeFromPreviousUpload(latest);
          progress.onResuming?.();
        }
        upload.start();
      })
      .catch((error: unknown) => reject(uploadError(error)));
  });
}

/** The server's own message when it answered (JSON envelope or tus's plain text), else a network failure. */
function uploadError(error: unknown): ApiError {
  if (!(error instanceof DetailedError) || !error.originalResponse) {
    return new ApiError(0, 'Upload failed: cannot reach the server');
  }
  const status = error.originalResponse.getStatus();
  const text = error.originalResponse.getBody() ?? '';
  try {
    return errorFromBody(status, JSON.parse(text), 'Upload failed');
  } catch {
    return new ApiError(status, text.trim() || `Upload failed (HTTP ${status})`);
  }
}
