import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import type { GatewayEnv } from '../env.js';

/** One NATS connection for the whole gateway: RPC to services and event subscriptions. */
@Global()
@Module({})
export class MessagingModule implements OnApplicationShutdown {
  constructor(
    @Inject(ResilientNatsConnection) private readonly nats: ResilientNatsConnection,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {}

  static forRoot(env: GatewayEnv): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        {
          provide: ResilientNatsConnection,
          useFactory: () => ResilientNatsConnection.open({ servers: env.NATS_URL, name: 'api-gateway' }),
        },
        {
          provide: RpcClient,
          inject: [ResilientNatsConnection],
          useFactory: (nats: ResilientNatsConnection) => new RpcClient(nats, env.RPC_TIMEOUT_MS),
        },
      ],
      exports: [ResilientNatsConnection, RpcClient],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.rpc.close(); // pending calls fail now instead of at their timeout
    await this.nats.close();
  }
}
