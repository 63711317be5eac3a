import { Global, Module, type DynamicModule, type OnApplicationShutdown, Injectable, Inject } from '@nestjs/common';
import { LimiterStore, type LimiterStoreOptions } from './limiter-store.js';

const STORE_OPTIONS = Symbol('LIMITER_STORE_OPTIONS');

@Injectable()
class LimiterStoreLifecycle implements OnApplicationShutdown {
  constructor(@Inject(LimiterStore) private readonly store: LimiterStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

/**
 * One `LimiterStore` (Redis connection) per app, global, closed on shutdown. Build limiters
 * from it where they are used: `new RequestRateLimiter(store, {...})`,
 * `new KeyLimiter(store, {...})`.
 */
@Global()
@Module({})
export class RateLimitModule {
  static forRoot(options: LimiterStoreOptions): DynamicModule {
    return {
      module: RateLimitModule,
      providers: [
        { provide: STORE_OPTIONS, useValue: options },
        {
          provide: LimiterStore,
          inject: [STORE_OPTIONS],
          useFactory: async (storeOptions: LimiterStoreOptions) => {
            const store = new LimiterStore(storeOptions);
            await store.ready();
            return store;
          },
        },
        LimiterStoreLifecycle,
      ],
      exports: [LimiterStore],
    };
  }
}
