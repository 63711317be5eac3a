import { GatewayError } from '@gw/errors';
import { tracingEnabled } from '@gw/telemetry';
import { tracedAttempt } from './attempt-span.js';
import { UpstreamFailure } from '../upstream/upstream-failure.js';
import { AttemptTracker } from './attempt-tracker.js';
import type { EndpointHealthTracker } from './endpoint-health.js';
import { recordAnswered, recordAttemptFailure, recordRouteFailure } from './routing-metrics.js';
import { cooldownKeyOf, type RouteAttempt, type RoutePlan } from './route-types.js';

export interface RouteResult<T> {
  result: T;
  attempt: RouteAttempt;
  tracker: AttemptTracker;
}

/**
 * Runs a plan's attempts in order until one succeeds. `call` must resolve once the provider
 * has accepted the call (for a stream: at its response head), so a refusal before the first
 * byte moves on to the next attempt. Moves on after a retryable failure (429, 5xx, connect,
 * timeout) and, on a BYOK key, after the provider refused that key (401/403): the next key
 * may work. Any other failure, or the last one, is thrown as its GatewayError.
 *
 * An attempt whose provider asked to wait (`retry-after` on a 429/503) is skipped until then;
 * when every attempt is waiting, the client gets 429 with the shortest wait as Retry-After
 * instead of a call the provider said it would refuse. An endpoint cooling down after failures
 * in a row (on any replica) is tried after every other: a cooled endpoint beats no answer.
 */
export async function executeRoute<T>(
  plan: RoutePlan,
  call: (attempt: RouteAttempt) => Promise<T>,
  health: EndpointHealthTracker,
  tracker = new AttemptTracker(),
): Promise<RouteResult<T>> {
  if (plan.attempts.length === 0) throw noRoute(plan);
  let lastFailure: UpstreamFailure | undefined;
  let shortestWaitMs: number | undefined;
  const failing = (attempt: RouteAttempt) => health.coolingFor(attempt.endpointKey) > 0;
  const ordered = plan.attempts.some(failing)
    ? [...plan.attempts.filter((attempt) => !failing(attempt)), ...plan.attempts.filter(failing)]
    : plan.attempts;
  for (const attempt of ordered) {
    const waitMs = health.coolingFor(cooldownKeyOf(attempt));
    if (waitMs > 0) {
      shortestWaitMs = Math.min(shortestWaitMs ?? waitMs, waitMs);
      continue;
    }
    tracker.begin();
    try {
      const result = await (tracingEnabled() ? tracedAttempt(attempt, tracker.attemptCount + 1, call) : call(attempt));
      const record = tracker.succeeded(attempt);
      recordAnswered(attempt, tracker.attemptCount);
      health.recordSuccess(attempt.endpointKey, record.latencyMs);
      return { result, attempt, tracker };
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
      tracker.failed(attempt, error);
      recordAttemptFailure(attempt, error);
      lastFailure = error;
      if (error.kind === 'aborted') break;
      if (error.retryable)
        health.recordFailure(
          attempt.endpointKey,
          { errorType: error.gatewayError.errorType, status: error.upstreamStatus },
          !attempt.endpoint.failsOnPurpose,
        );
      if (
        error.retryAfterMs !== undefined &&
        (error.upstreamStatus === 429 || error.upstreamStatus === 503 || error.upstreamStatus === 529)
      ) {
        health.coolDown(cooldownKeyOf(attempt), error.retryAfterMs);
      }
      if (!error.retryable && !refusedByokKey(attempt, error)) break;
    }
  }
  const failure = lastFailure ? lastFailure.gatewayError : allWaiting(plan, shortestWaitMs ?? 1000);
  recordRouteFailure(failure.errorType);
  throw failure;
}

function allWaiting(plan: RoutePlan, waitMs: number): GatewayError {
  return new GatewayError(429, `Every provider of "${plan.requested}" asked to wait before the next request (rate limited upstream)`, {
    errorType: 'rate_limit_exceeded',
    metadata: { reason: 'upstream_rate_limited', retry_after: Math.max(1, Math.ceil(waitMs / 1000)) },
  });
}

/** A refused key that is one of several (a BYOK key, one of an endpoint's own gateway keys): the next may work. */
function refusedByokKey(attempt: RouteAttempt, failure: UpstreamFailure): boolean {
  const { credential } = attempt;
  return (
    (credential.kind === 'byok' || credential.keyIndex !== undefined) && (failure.upstreamStatus === 401 || failure.upstreamStatus === 403)
  );
}

function noRoute(plan: RoutePlan): GatewayError {
  if (plan.candidates.length === 0) {
    return new GatewayError(
      404,
      `No endpoint of "${plan.requested}" matches the request's provider preferences (provider.only / provider.ignore)`,
      {
        errorType: 'not_found',
      },
    );
  }
  // Every endpoint left is on a provider the gateway holds no key for, and no BYOK key of the
  // workspace admits this request: the caller can fix that by adding one.
  const providers = [...new Set(plan.candidates.map((candidate) => candidate.endpoint.provider.id))].join(', ');
  return new GatewayError(
    400,
    `"${plan.requested}" needs your own provider key: add a BYOK credential for ${providers} (POST /v1/byok) that admits this API key`,
    {
      errorType: 'invalid_request',
      metadata: { reason: 'byok_required', providers },
    },
  );
}
