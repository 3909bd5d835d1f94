import net from 'node:net';
import { once } from 'node:events';

/**
 * A TCP forwarder a test can freeze: connections stay open but nothing moves either way, as when the server
 * behind it is stopped (SIGSTOP, a stalled disk, a network partition) rather than gone. What arrives meanwhile is
 * held and delivered on thaw, as TCP would once the peer answers again.
 */
export interface FreezableProxy {
  port: number;
  /** Stops forwarding at once (synchronously, so a test may freeze from inside a log call). */
  freeze(): void;
  /** Delivers what was held and forwards again. */
  thaw(): void;
  /** Freezes for `ms`, then thaws; resolves after the thaw. */
  freezeFor(ms: number): Promise<void>;
  /**
   * Freezes for `ms` the first time a client sends bytes containing `pattern` (a query's text), holding those
   * bytes too; resolves after the thaw.
   */
  freezeWhenSent(pattern: string, ms: number): Promise<void>;
  /** Whether forwarding is stopped now. */
  readonly frozen: boolean;
  /** How many times it froze. */
  readonly freezes: number;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:<port> to host:targetPort until frozen. */
export async function createFreezableProxy(host: string, targetPort: number): Promise<FreezableProxy> {
  const sockets = new Set<net.Socket>();
  // Chunks held while frozen, with where each goes, in arrival order.
  let held: { to: net.Socket; chunk: Buffer }[] = [];
  let frozen = false;
  let freezes = 0;
  let trigger: { pattern: string; fire: () => void } | undefined;

  const forward = (from: net.Socket, to: net.Socket, fromClient: boolean) => {
    from.on('data', (chunk: Buffer) => {
      if (fromClient && trigger && chunk.includes(trigger.pattern)) {
        const { fire } = trigger;
        trigger = undefined;
        fire();
      }
      if (frozen) held.push({ to, chunk });
      else if (!to.destroyed) to.write(chunk);
    });
    from.on('end', () => to.end());
    from.on('error', () => to.destroy());
    from.on('close', () => {
      sockets.delete(from);
      to.destroy();
    });
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, host);
    sockets.add(client);
    sockets.add(upstream);
    forward(client, upstream, true);
    forward(upstream, client, false);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;

  const proxy: FreezableProxy = {
    port,
    freeze() {
      if (frozen) return;
      frozen = true;
      freezes++;
    },
    thaw() {
      frozen = false;
      const release = held;
      held = [];
      for (const { to, chunk } of release) if (!to.destroyed) to.write(chunk);
    },
    async freezeFor(ms) {
      proxy.freeze();
      await new Promise((resolve) => setTimeout(resolve, ms));
      proxy.thaw();
    },
    freezeWhenSent(pattern, ms) {
      return new Promise<void>((resolve) => {
        trigger = { pattern, fire: () => void proxy.freezeFor(ms).then(resolve) };
      });
    },
    get frozen() {
      return frozen;
    },
    get freezes() {
      return freezes;
    },
    async close() {
      frozen = false;
      held = [];
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
