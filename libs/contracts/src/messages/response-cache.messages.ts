import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';

/** Longest time-to-live a caller may ask for, in seconds; the operator's bound is usually lower. */
export const RESPONSE_CACHE_TTL_MAX_SECONDS = 30 * 24 * 3600;

/**
 * What the caller said about the response cache, read by the gateway from the
 * request's headers and its `cache` body field. Absent: the caller said nothing (the key's or
 * preset's setting applies, else no caching).
 */
export class ResponseCacheControls {
  /** Opt in (true) or out (false). */
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  /** How long a stored answer lives, bounded by the operator. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(RESPONSE_CACHE_TTL_MAX_SECONDS)
  ttlSeconds?: number;

  /** `refresh` (no-cache): go upstream and store the fresh answer; `bypass` (no-store): neither read nor store. */
  @IsOptional()
  @IsIn(['refresh', 'bypass'])
  directive?: 'refresh' | 'bypass';

  /** The caller marked the request private: never stored, never answered from the cache. */
  @IsOptional()
  @IsBoolean()
  private?: boolean;

  /** Identical requests in flight wait for the first answer (default true when cached). */
  @IsOptional()
  @IsBoolean()
  coalesce?: boolean;

  /** `n` > 1 with a temperature above 0 is cached only when asked. */
  @IsOptional()
  @IsBoolean()
  allowSampledChoices?: boolean;
}
