import http from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';

/** What one tus request answered. */
export interface TusAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Options of {@link TusClient.patch}. */
export interface PatchOptions {
  /** Bytes the request announces in Content-Length; the body's length when it is a buffer. */
  contentLength?: number;
  /** Closes the connection once this many body bytes are written, like a client losing its network. */
  dropAfterBytes?: number;
}

/** A bare tus 1.0 client over real HTTP, one method per protocol request, so tests see every step. */
export interface TusClient {
  /** `POST /api/uploads` announcing the length and metadata; the answer's `location` is the upload URL. */
  create(length: number, metadata: Record<string, string>): Promise<TusAnswer & { location: string }>;
  /** `HEAD <upload>`: the offset the server holds. */
  head(location: string): Promise<TusAnswer & { offset: number }>;
  /**
   * `PATCH <upload>` from `offset`; undefined when no answer came: with `dropAfterBytes` the connection is cut
   * mid-body on purpose, otherwise the server closed it without answering.
   */
  patch(
    location: string,
    offset: number,
    body: Uint8Array | Readable,
    options?: PatchOptions,
  ): Promise<TusAnswer | undefined>;
  /** Any request with the token and Tus-Resumable, for the refusals. */
  send(method: string, path: string, headers?: Record<string, string>, body?: Uint8Array): Promise<TusAnswer>;
  /**
   * Like {@link TusClient.send}, with the body sent chunked (no Content-Length), one write per part, as a client
   * streaming what it does not know the length of, `pauseMs` apart (so the server has stored one before the next
   * comes); undefined when the server closed the connection unanswered.
   */
  sendChunked(
    method: string,
    path: string,
    headers: Record<string, string>,
    parts: Uint8Array[],
    pauseMs?: number,
  ): Promise<TusAnswer | undefined>;
}

/** The last path segment of an upload URL: the `upload_id` `POST /api/models` takes. */
export function uploadIdOf(location: string): string {
  return location.slice(location.lastIndexOf('/') + 1);
}

/** A tus client for the server at `baseUrl` sending `headers` (the token) with every request. */
export function tusClient(baseUrl: string, headers: Record<string, string>): TusClient {
  const request = (
    method: string,
    path: string,
    extra: Record<string, string | number>,
  ): http.ClientRequest =>
    http.request(new URL(path, baseUrl), {
      method,
      headers: { ...headers, 'tus-resumable': '1.0.0', ...extra },
      agent: false,
    });

  const answer = async (req: http.ClientRequest): Promise<TusAnswer> => {
    const [response] = (await once(req, 'response')) as [http.IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    return {
      status: response.statusCode ?? 0,
      headers: response.headers,
      text: Buffer.concat(chunks).toString(),
    };
  };

  const send: TusClient['send'] = async (method, path, extra = {}, body) => {
    const req = request(method, path, body ? { ...extra, 'content-length': body.length } : extra);
    const answered = answer(req);
    req.end(body);
    return answered;
  };

  return {
    send,
    async sendChunked(method, path, extra, parts, pauseMs = 0) {
      const req = request(method, path, { ...extra, 'transfer-encoding': 'chunked' });
      const answered = answer(req);
      // A refusal may come, and the connection close, before every part is written.
      answered.catch(() => {});
      for (const [index, part] of parts.entries()) {
        if (index > 0 && pauseMs > 0) await sleep(pauseMs);
        if (req.destroyed) break;
        if (!req.write(part)) await drainedOrClosed(req);
      }
      if (!req.destroyed) req.end();
      return answered.catch(() => undefined);
    },
    async create(length, metadata) {
      const encoded = Object.entries(metadata)
        .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
        .join(',');
      const created = await send('POST', '/api/uploads', {
        'upload-length': String(length),
        'upload-metadata': encoded,
      });
      return { ...created, location: String(created.headers.location ?? '') };
    },
    async head(location) {
      const answered = await send('HEAD', location);
      return { ...answered, offset: Number(answered.headers['upload-offset'] ?? Number.NaN) };
    },
    async patch(location, offset, body, options = {}) {
      const length = options.contentLength ?? (body instanceof Uint8Array ? body.length : undefined);
      if (length === undefined) throw new Error('a streamed PATCH needs its contentLength');
      const req = request('PATCH', location, {
        'upload-offset': offset,
        'content-type': 'application/offset+octet-stream',
        'content-length': length,
      });
      const answered = answer(req);
      // An answer before the body is sent (a refusal) must not reject as unhandled while the body is written.
      answered.catch(() => {});
      const source: Iterable<Uint8Array> | AsyncIterable<Uint8Array> =
        body instanceof Uint8Array ? [body] : body;
      let written = 0;
      const limit = options.dropAfterBytes ?? Number.POSITIVE_INFINITY;
      for await (const chunk of source) {
        if (req.destroyed) break;
        const part = chunk.subarray(0, Math.max(0, limit - written));
        written += part.length;
        // A server that closes the connection mid-body (a refusal, a timeout) ends the sending, not the test.
        if (part.length > 0 && !req.write(part)) await drainedOrClosed(req);
        if (req.destroyed) break;
        if (written >= limit) break;
      }
      if (options.dropAfterBytes === undefined) {
        req.end();
        return answered.catch(() => undefined);
      }
      // Let the bytes reach the server before the connection goes, as a network that fails mid-transfer would.
      await sleep(200);
      req.destroy();
      return undefined;
    },
  };
}

/** Waits for a request to drain or close, removing both listeners after: a long upload waits thousands of times. */
async function drainedOrClosed(req: http.ClientRequest): Promise<void> {
  const settled = new AbortController();
  try {
    await Promise.race([
      once(req, 'drain', { signal: settled.signal }),
      once(req, 'close', { signal: settled.signal }),
    ]);
  } finally {
    settled.abort();
  }
}
