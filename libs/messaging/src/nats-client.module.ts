import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { JetStreamPlacement } from './jetstream-placement.js';
import { ResilientNatsConnection, type NatsAuth } from './nats-connection.js';
import { RpcClient } from './rpc-client.js';
import type { PrincipalSigner } from './principal/principal-signer.js';

export interface NatsClientOptions {
  natsUrl: string;
  /** Connection name, as nats-server's monitoring shows it. */
  name: string;
  rpcTimeoutMs: number;
  /** See RpcClientOptions.livenessTimeoutMs. */
  livenessTimeoutMs?: number;
  /** See RpcClientOptions.reconnectWaitMs. */
  reconnectWaitMs?: number;
  /** The app's credentials on the bus. */
  auth?: NatsAuth;
  /** Replicas and tags of the JetStream streams and stores the app creates (`jetStreamPlacementFromEnv`). */
  jetstream?: JetStreamPlacement;
  /** The gateway's principal signer (RpcClientOptions.principalSigner). */
  principalSigner?: PrincipalSigner;
}

/**
 * An app's client side of NATS (beside the connection a microservice transport listens on):
 * one connection and one RpcClient for every call out, event subscription and JetStream use,
 * closed on shutdown (pending calls fail at once instead of at their timeout).
 */
@Global()
@Module({})
export class NatsClientModule implements OnApplicationShutdown {
  constructor(
    @Inject(ResilientNatsConnection) private readonly nats: ResilientNatsConnection,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {}

  static forRoot(options: NatsClientOptions): DynamicModule {
    return {
      module: NatsClientModule,
      providers: [
        {
          provide: ResilientNatsConnection,
          useFactory: () =>
            ResilientNatsConnection.open({
              servers: options.natsUrl,
              name: options.name,
              auth: options.auth,
              jetstream: options.jetstream,
            }),
        },
        {
          provide: RpcClient,
          inject: [ResilientNatsConnection],
          useFactory: (nats: ResilientNatsConnection) =>
            new RpcClient(nats, options.rpcTimeoutMs, {
              livenessTimeoutMs: options.livenessTimeoutMs,
              reconnectWaitMs: options.reconnectWaitMs,
              principalSigner: options.principalSigner,
            }),
        },
      ],
      exports: [ResilientNatsConnection, RpcClient],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.rpc.close();
    await this.nats.close();
  }
}
