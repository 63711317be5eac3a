import { connect, type NatsConnection } from '@nats-io/transport-node';

export interface NatsConnectOptions {
  servers: string;
  name: string;
}

/**
 * One NATS connection that never gives up: during an outage it keeps reconnecting, and
 * `isConnected()` lets callers fail fast with a 503 instead of queueing requests that
 * would only time out.
 */
export class ResilientNatsConnection {
  private connected = true;

  private constructor(readonly connection: NatsConnection) {
    void this.watchStatus();
  }

  static async open(options: NatsConnectOptions): Promise<ResilientNatsConnection> {
    const connection = await connect({
      servers: options.servers.split(','),
      name: options.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      waitOnFirstConnect: true,
      pingInterval: 10_000,
    });
    return new ResilientNatsConnection(connection);
  }

  isConnected(): boolean {
    return this.connected && !this.connection.isClosed();
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain();
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnecting') this.connected = false;
      if (status.type === 'reconnect') this.connected = true;
    }
    this.connected = false;
  }
}
