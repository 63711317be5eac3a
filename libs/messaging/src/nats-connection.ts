import { connect, createInbox, nkeyAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefix, type BusUser } from '@gw/contracts';
import { SINGLE_NODE, type JetStreamPlacement } from './jetstream-placement.js';
import { writeOncePerTurn } from './writes-per-turn.js';

/**
 * Who a process is on the bus: its nkey seed (the server knows the public key and
 * that user's permissions), the inbox prefix its permissions allow it to subscribe to
 * (`inboxPrefix(user)` of `@gw/contracts`), and TLS files when the server requires TLS.
 * Without a seed the connection is anonymous, which only a server without authorization accepts.
 */
export interface NatsAuth {
  nkeySeed?: string;
  inboxPrefix?: string;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

/** The options of `connect()` for `auth`. */
export function natsAuthOptions(auth: NatsAuth | undefined): Partial<ConnectionOptions> {
  if (!auth) return {};
  const encoder = new TextEncoder();
  const tls = auth.tls && (auth.tls.caFile || auth.tls.certFile) ? { tls: { ...auth.tls } } : {};
  return {
    ...(auth.nkeySeed ? { authenticator: nkeyAuthenticator(encoder.encode(auth.nkeySeed)) } : {}),
    ...(auth.inboxPrefix ? { inboxPrefix: auth.inboxPrefix } : {}),
    ...tls,
  };
}

/** A new inbox under the connection's prefix (the only inboxes its user may subscribe to). */
export function connectionInbox(connection: NatsConnection): string {
  const options = (connection as unknown as { options?: ConnectionOptions }).options;
  return createInbox(options?.inboxPrefix);
}

export interface NatsConnectOptions {
  servers: string;
  name: string;
  auth?: NatsAuth;
  /** Replicas and tags of the JetStream streams and stores made through this connection; default one copy. */
  jetstream?: JetStreamPlacement;
}

/**
 * One NATS connection that never gives up: during an outage it keeps reconnecting, and
 * `isConnected()` lets callers fail fast with a 503 instead of queueing requests that
 * would only time out.
 */
export class ResilientNatsConnection {
  private connected = true;
  /** Callers waiting for the connection to come back (`whenConnected`). */
  private readonly reconnectWaiters = new Set<(connected: boolean) => void>();

  private constructor(
    readonly connection: NatsConnection,
    /** Where the streams, consumers and stores made through this connection are placed. */
    readonly jetstream: JetStreamPlacement,
  ) {
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
      ...natsAuthOptions(options.auth),
    });
    return new ResilientNatsConnection(writeOncePerTurn(connection), options.jetstream ?? SINGLE_NODE);
  }

  isConnected(): boolean {
    return this.connected && !this.connection.isClosed();
  }

  /**
   * True at once when connected; else waits up to `timeoutMs` for the client's own reconnect (a
   * NATS node restarting takes about a second to be replaced) and says whether it came back.
   */
  whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.isConnected()) return Promise.resolve(true);
    if (timeoutMs <= 0 || this.connection.isClosed()) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (connected: boolean) => {
        clearTimeout(timer);
        this.reconnectWaiters.delete(done);
        resolve(connected);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.reconnectWaiters.add(done);
    });
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain();
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnecting') this.connected = false;
      if (status.type === 'reconnect') {
        this.connected = true;
        for (const waiter of [...this.reconnectWaiters]) waiter(true);
      }
      // A publish or subscription the user's permissions refuse: a bug in the
      // permission table or a misconfigured seed, never silent.
      if (status.type === 'error')
        console.error(`NATS refused an operation: ${(status as { error?: Error }).error?.message ?? 'unknown error'}`);
    }
    this.connected = false;
    for (const waiter of [...this.reconnectWaiters]) waiter(false);
  }
}

/** The variables of `CommonEnv` (`@gw/config`) that say who a process is on the bus. */
export interface NatsAuthEnv {
  NATS_NKEY_SEED?: string;
  NATS_TLS_CA_FILE?: string;
  NATS_TLS_CERT_FILE?: string;
  NATS_TLS_KEY_FILE?: string;
}

/** `user`'s credentials from its validated environment. */
export function natsAuthFromEnv(env: NatsAuthEnv, user: BusUser): NatsAuth {
  const tls = {
    ...(env.NATS_TLS_CA_FILE ? { caFile: env.NATS_TLS_CA_FILE } : {}),
    ...(env.NATS_TLS_CERT_FILE ? { certFile: env.NATS_TLS_CERT_FILE } : {}),
    ...(env.NATS_TLS_KEY_FILE ? { keyFile: env.NATS_TLS_KEY_FILE } : {}),
  };
  return {
    inboxPrefix: inboxPrefix(user),
    ...(env.NATS_NKEY_SEED ? { nkeySeed: env.NATS_NKEY_SEED } : {}),
    ...(Object.keys(tls).length > 0 ? { tls } : {}),
  };
}
