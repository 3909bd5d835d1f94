// A TCP forwarder that lets request bytes through at a fixed rate, so a browser upload is still under way (and
// the server holds only part of it) when a test reloads the page.
import { once } from 'node:events';
import net from 'node:net';
import { Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** A running {@link startThrottledProxy}. */
export interface ThrottledProxy {
  /** `http://127.0.0.1:<port>`: the server as the browser should reach it. */
  baseUrl: string;
  close(): Promise<void>;
}

/** Slices the stream and waits between slices so it never goes faster than `bytesPerSecond`. */
function throttle(bytesPerSecond: number): Transform {
  const slice = Math.max(1024, Math.floor(bytesPerSecond / 20));
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      void (async () => {
        for (let at = 0; at < chunk.length; at += slice) {
          this.push(chunk.subarray(at, at + slice));
          await sleep((1000 * Math.min(slice, chunk.length - at)) / bytesPerSecond);
        }
        callback();
      })();
    },
  });
}

/** Forwards a local port to `targetPort`, requests throttled to `bytesPerSecond`, answers at full speed. */
export async function startThrottledProxy(
  targetPort: number,
  bytesPerSecond: number,
): Promise<ThrottledProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(throttle(bytesPerSecond)).pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
