import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { KeyLimiter, LimiterStore, type RateDecision } from '@gw/rate-limit';
import type { FastifyReply } from 'fastify';
import { isPublicRoute } from '../auth/public.decorator.js';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';

/**
 * Per-key limits at the edge (issue 9 item 4), after authentication: requests per
 * minute and requests or streams in flight, counted in Redis so every replica shares them
 * (`@gw/rate-limit`), each the key's own override or the gateway's default. A refusal
 * is 429 `rate_limit_exceeded` with `Retry-After`; every limited answer carries
 * `X-RateLimit-Limit`, `-Remaining` and `-Reset` (epoch milliseconds, when the window ends).
 * An in-flight slot is held until the response is over (a stream: its last byte, or the
 * client leaving). Redis down: both let requests through (fail open) and no headers are sent.
 */
@Injectable()
export class KeyLimitsGuard implements CanActivate {
  private readonly limits: KeyLimiter;

  constructor(
    private readonly reflector: Reflector,
    @Inject(LimiterStore) store: LimiterStore,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {
    this.limits = new KeyLimiter(store, {
      rateName: 'key-rpm',
      durationSeconds: 60,
      concurrencyName: 'key-concurrency',
      leaseTtlMs: env.KEY_CONCURRENCY_LEASE_MS,
    });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (isPublicRoute(this.reflector, context)) return true;
    const http = context.switchToHttp();
    const principal = http.getRequest<{ principal?: Principal }>().principal;
    if (!principal) return true; // the auth guard refused already, or the route takes no key
    const reply = http.getResponse<FastifyReply>();
    const rpm = principal.rateLimits?.requestsPerMinute ?? this.env.KEY_RATE_LIMIT_RPM;
    const concurrency = principal.rateLimits?.concurrentRequests ?? this.env.KEY_CONCURRENCY_LIMIT;
    // One Redis command for both: a window refusal takes no slot.
    const { rate, slot } = await this.limits.acquire(principal.keyHash, rpm, concurrency);
    if (!rate.degraded) setRateHeaders(reply, rate);
    if (!rate.allowed || !slot) {
      throw tooMany(
        `Rate limit exceeded: ${rate.limit} requests per minute for this key`,
        'requests_per_minute',
        rate.limit,
        rate.retryAfterSeconds,
      );
    }
    if (!slot.allowed) {
      throw tooMany(
        `Too many requests in flight for this key (at most ${slot.limit} at once)`,
        'concurrent_requests',
        slot.limit,
        slot.retryAfterSeconds,
      );
    }
    // 'close' comes once the response is over, sent whole or cut by the client, streams included;
    // a client gone during the Redis call had its 'close' already, which is not sent again (the
    // lease would be renewed for ever).
    reply.raw.once('close', () => void slot.lease.release());
    if (reply.raw.closed) void slot.lease.release();
    return true;
  }
}

function setRateHeaders(reply: FastifyReply, rate: RateDecision): void {
  void reply.header('x-ratelimit-limit', String(rate.limit));
  void reply.header('x-ratelimit-remaining', String(rate.remaining));
  void reply.header('x-ratelimit-reset', String(rate.resetAt));
}

function tooMany(
  message: string,
  limitType: 'requests_per_minute' | 'concurrent_requests',
  limit: number,
  retryAfterSeconds: number,
): GatewayError {
  return new GatewayError(429, message, {
    errorType: 'rate_limit_exceeded',
    metadata: { reason: 'rate_limited', limit_type: limitType, limit, retry_after: Math.max(1, retryAfterSeconds), retryable: true },
  });
}
