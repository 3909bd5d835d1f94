import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver on 127.0.0.1 answering with the given statuses in turn (the last one repeats). */
export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `count` requests arrived; fails after `timeoutMs` with how many did. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Starts a receiver on a free port. */
export async function startReceiver(statuses: number[] = [200]): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = statuses[Math.min(received.length, statuses.length) - 1]!;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async waitFor(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`${received.length} of ${count} requests within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return received;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A receiver that takes requests and never answers them, as a stalled or malicious endpoint does. */
export interface HangingReceiver {
  url: string;
  /** Requests that arrived. */
  readonly requests: number;
  /** Requests open now: taken and neither answered nor given up by the sender. */
  readonly openNow: number;
  /** Most requests open at the same time. */
  readonly mostAtOnce: number;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 that never answers. */
export async function startHangingReceiver(): Promise<HangingReceiver> {
  let requests = 0;
  let open = 0;
  let mostAtOnce = 0;
  const server = http.createServer((request) => {
    requests++;
    mostAtOnce = Math.max(mostAtOnce, ++open);
    request.socket.once('close', () => open--);
    request.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hang`,
    get requests() {
      return requests;
    },
    get openNow() {
      return open;
    },
    get mostAtOnce() {
      return mostAtOnce;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
