import { randomBytes } from 'node:crypto';

/** The file part of a multipart form built by {@link multipartForm}. */
export interface MultipartFile {
  /** Form field name, e.g. `file` or `thumbnail`. */
  field: string;
  filename: string;
  data: Uint8Array | string;
  /** Declared type; the server judges by bytes, so tests may lie here on purpose. */
  contentType?: string;
}

/**
 * Builds a `multipart/form-data` body with text fields and at most one file, ready for `app.inject`:
 * `app.inject({ method: 'POST', url, headers: { ...auth, ...form.headers }, payload: form.payload })`.
 */
export function multipartForm(
  fields: Record<string, string>,
  file?: MultipartFile,
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----vitrine-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\n` +
          `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      Buffer.from(file.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const payload = Buffer.concat(chunks);
  return {
    payload,
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(payload.length),
    },
  };
}
