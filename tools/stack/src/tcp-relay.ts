import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './ports.ts';

/**
 * A TCP relay between the services and a server the tests must not restart (the machine's
 * PostgreSQL, shared by every run): `cut()` resets every connection through it and refuses new
 * ones, as a server restart or a failover looks to its clients; `restore()` lets them in again.
 */
export class TcpRelay {
  readonly port: number;
  private readonly target: { host: string; port: number };
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;

  private constructor(port: number, target: { host: string; port: number }) {
    this.port = port;
    this.target = target;
  }

  static async start(target: { host: string; port: number }): Promise<TcpRelay> {
    const relay = new TcpRelay(await freePort(), target);
    await relay.restore();
    return relay;
  }

  /** Accepts connections again and relays them to the target. */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
  }

  /** Resets every relayed connection and refuses new ones until `restore()`. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.resetAndDestroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  close(): Promise<void> {
    return this.cut();
  }
}
