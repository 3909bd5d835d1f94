import net from 'node:net';
import { once } from 'node:events';

/** A TCP forwarder a test can cut, to make a server unreachable without stopping it for everyone else. */
export interface TcpProxy {
  port: number;
  /** Stops listening and drops every forwarded connection: the target now looks unreachable. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:<port> to host:targetPort. */
export async function createTcpProxy(host: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, host);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    cut: stop,
    async restore() {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    close: stop,
  };
}

/** `url` with its host and port replaced by the proxy's (this one or a freezable one), so a client of it goes through the proxy. */
export function throughProxy(url: string, proxy: Pick<TcpProxy, 'port'>): string {
  const through = new URL(url);
  through.hostname = '127.0.0.1';
  through.port = String(proxy.port);
  return through.toString();
}

/** Starts a proxy in front of the server `url` names (`defaultPort` when it names none): the proxy and the URL through it. */
export async function proxyInFront(
  url: string,
  defaultPort: number,
): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(url);
  const proxy = await createTcpProxy(target.hostname, Number(target.port || defaultPort));
  return { proxy, url: throughProxy(url, proxy) };
}
