import type { IsolatedStack } from '@gw/stack';

/** What the end-to-end global setup hands to tests through Vitest's `inject()`. */
export type E2eStack = IsolatedStack;

declare module 'vitest' {
  export interface ProvidedContext {
    /** Integration: prefix of the run's databases. */
    databasePrefix: string;
    /** Integration: URL of the run's nats-server. */
    natsUrl: string;
    /** Integration: the rate limiter's Redis and the run's key prefix (keys expire on their own). */
    redisUrl: string;
    redisKeyPrefix: string;
    /** End to end: the running stack. */
    stack: E2eStack;
  }
}
