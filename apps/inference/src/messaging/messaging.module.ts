import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import type { InferenceEnv } from '../env.js';

/**
 * Inference's own client connection to NATS, beside the one the microservice transport
 * listens on: RPC to management (presets, BYOK), cache-invalidation events and JetStream
 * (usage events out, generation records in).
 */
@Global()
@Module({})
export class InferenceMessagingModule implements OnApplicationShutdown {
  constructor(
    @Inject(ResilientNatsConnection) private readonly nats: ResilientNatsConnection,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {}

  static forRoot(env: InferenceEnv): DynamicModule {
    return {
      module: InferenceMessagingModule,
      providers: [
        {
          provide: ResilientNatsConnection,
          useFactory: () => ResilientNatsConnection.open({ servers: env.NATS_URL, name: 'inference-client' }),
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
    this.rpc.close();
    await this.nats.close();
  }
}
