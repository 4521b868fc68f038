/**
 * A TCP proxy on a free loopback port that forwards each connection to one target port, which a
 * test can switch: one address in front of servers that take turns, as a virtual IP or a DNS
 * name is in front of a database's primary.
 *
 * @module
 */

import { connect, createServer, type Socket } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** The port new connections go to. */
  readonly target: number;
  /** Sends new connections to `port` and cuts the open ones, as a moved address does. */
  switchTo(port: number): void;
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a proxy to `target` on 127.0.0.1. A connection the target refuses or closes is closed
 * on the client's side too.
 *
 * @param target The port it forwards to.
 * @returns The proxy, listening.
 * @example
 * ```ts
 * const proxy = await startTcpProxy(5432);
 * // connect to proxy.port; later: proxy.switchTo(5433);
 * ```
 */
export async function startTcpProxy(target: number): Promise<TcpProxy> {
  let current = target;
  const open = new Set<Socket>();
  const track = (socket: Socket): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(current, '127.0.0.1');
    track(client);
    track(upstream);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutAll = (): void => {
    for (const socket of open) socket.destroy();
  };
  return {
    port: (server.address() as { port: number }).port,
    get target() {
      return current;
    },
    switchTo(port) {
      current = port;
      cutAll();
    },
    close() {
      cutAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
