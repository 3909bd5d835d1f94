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
 * Builds a `multipart/form-data` body with text fields and files (none, one, or several in order), ready for
 * `app.inject`:
 * `app.inject({ method: 'POST', url, headers: { ...auth, ...form.headers }, payload: form.payload })`.
 */
export function multipartForm(
  fields: Record<string, string>,
  file?: MultipartFile | readonly MultipartFile[],
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----vitrine-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const one of file === undefined ? [] : Array.isArray(file) ? file : [file as MultipartFile]) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${one.field}"; filename="${one.filename}"\r\n` +
          `Content-Type: ${one.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      Buffer.from(one.data),
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
