import { IsInt, Matches, Max, Min } from 'class-validator';

// A mixin's base must take `...args: any[]` (TS2545).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EnvClass = abstract new (...args: any[]) => object;

/**
 * What inference (which stores and answers) and the gateway (which answers whole-answer hits
 * itself) must agree on about the response cache: one declaration, so one default.
 */
export function WithResponseCacheEnv<Base extends EnvClass>(base: Base) {
  abstract class ResponseCacheEnv extends base {
    /**
     * Response cache: the longest a stored answer lives, whatever the caller asks;
     * 0 turns the cache off. Callers opt in per request, key or preset; nothing is cached otherwise.
     * Set the same value on inference and the gateway.
     */
    @IsInt()
    @Min(0)
    @Max(30 * 24 * 3600)
    RESPONSE_CACHE_MAX_TTL_SECONDS: number = 86_400;

    /**
     * What a hit is charged, as a fraction of the cost it avoided (decimal string, at most 12 places; 0 = free, 0.1 = 10 %).
     * Set the same value on inference and the gateway.
     */
    @Matches(/^(0(\.\d{1,12})?|1(\.0{1,12})?)$/)
    RESPONSE_CACHE_PRICE_RATE: string = '0';
  }
  return ResponseCacheEnv;
}
