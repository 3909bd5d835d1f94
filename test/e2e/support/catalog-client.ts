// Talks to a running server's catalog from the test process: uploads a sample and waits for its conversion.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/** The fields of a model record the browser tests read. */
export interface ModelRecord {
  id: string;
  name: string;
  status: string;
  error: string | null;
  original_url: string;
  model_url: string | null;
  lods: { level: number; url: string; size: number }[];
}

/** A catalog client bound to one server and token. */
export function catalogClient(baseUrl: string, token: string) {
  const call = async (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(baseUrl + path, { ...init, headers: { 'X-API-Token': token, ...(init.headers ?? {}) } });
  return {
    call,
    /** Uploads a file (from disk, or bytes under a name) and returns the new model. */
    async upload(
      file: string | { name: string; bytes: Uint8Array<ArrayBuffer> },
      fields: Record<string, string> = {},
    ) {
      const name = typeof file === 'string' ? basename(file) : file.name;
      const bytes: Uint8Array<ArrayBuffer> =
        typeof file === 'string' ? new Uint8Array(await readFile(file)) : file.bytes;
      const form = new FormData();
      for (const [key, value] of Object.entries(fields)) form.append(key, value);
      form.append('file', new Blob([bytes]), name);
      const answer = await call('/api/models', { method: 'POST', body: form });
      assert.equal(answer.status, 201, `upload of ${name}: ${await answer.clone().text()}`);
      return ((await answer.json()) as { data: ModelRecord }).data;
    },
    /** Polls the model until it is completed; fails with the model's error when it fails. */
    async waitCompleted(id: string, timeoutMs = 240_000): Promise<ModelRecord> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const model = ((await (await call(`/api/models/${id}`)).json()) as { data: ModelRecord }).data;
        if (model.status === 'completed') return model;
        assert.notEqual(model.status, 'failed', `conversion of ${model.name} failed: ${model.error}`);
        assert.ok(Date.now() < deadline, `conversion of ${model.name} did not finish in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    },
  };
}
