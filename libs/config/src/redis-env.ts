import { IsString, Matches } from 'class-validator';

// A mixin's base must take `...args: any[]` (TS2545).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EnvClass = abstract new (...args: any[]) => object;

/**
 * The shared Redis of the rate limiters (libs/rate-limit), added to an env class:
 * `class GatewayEnv extends WithRedisEnv(CommonEnv)`. The gateway and intern-signing read it.
 */
export function WithRedisEnv<Base extends EnvClass>(base: Base) {
  abstract class RedisEnv extends base {
    /** `redis://` or `rediss://` (TLS). */
    @IsString()
    @Matches(/^rediss?:\/\//)
    REDIS_URL = 'redis://127.0.0.1:6379';

    /** Prefix of every key, so several deployments can share one Redis. */
    @IsString()
    REDIS_KEY_PREFIX = 'gw:';
  }
  return RedisEnv;
}
