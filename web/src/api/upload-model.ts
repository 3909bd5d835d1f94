/** Model upload through XMLHttpRequest, because fetch cannot report upload progress. */
import { ApiError, errorFromBody } from './api-error.ts';
import { getToken } from './token.ts';
import type { Model } from './types.ts';

/** What the person typed next to the file; both optional. */
export interface UploadFields {
  name?: string;
  description?: string;
}

/** Uploads a model file; `onProgress` receives the fraction of bytes sent (0–1). */
export function uploadModel(
  file: File,
  fields: UploadFields,
  onProgress: (fraction: number) => void,
): Promise<Model> {
  const form = new FormData();
  // Text fields go before the file: the server reads the multipart stream in order.
  if (fields.name) form.append('name', fields.name);
  if (fields.description) form.append('description', fields.description);
  form.append('file', file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/models');
    xhr.setRequestHeader('X-API-Token', getToken() ?? '');
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300 && body && typeof body === 'object' && 'data' in body) {
        onProgress(1);
        resolve((body as { data: Model }).data);
      } else {
        reject(errorFromBody(xhr.status, body, 'Upload failed'));
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'Upload failed: cannot reach the server')));
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'Upload cancelled')));
    xhr.send(form);
  });
}
