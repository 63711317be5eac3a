import { counter } from '@gw/metrics';
import type { UpstreamFailure } from '../upstream/upstream-failure.js';
import type { RouteAttempt } from './route-types.js';

const attemptFailures = counter('inference_attempt_failures_total', 'Provider calls that failed, by provider and canonical error type', ['provider', 'error_type', 'retryable']);
const fallbacks = counter('inference_fallbacks_total', 'Requests answered by a later attempt than the first, by model', ['model']);
const routeFailures = counter('inference_route_failures_total', 'Requests no attempt could answer, by canonical error type', ['error_type']);

export function recordAttemptFailure(attempt: RouteAttempt, failure: UpstreamFailure): void {
  attemptFailures.inc({ provider: attempt.endpoint.provider.id, error_type: failure.gatewayError.errorType, retryable: String(failure.retryable) });
}

export function recordAnswered(attempt: RouteAttempt, attemptNumber: number): void {
  if (attemptNumber > 1) fallbacks.inc({ model: attempt.modelId });
}

export function recordRouteFailure(errorType: string): void {
  routeFailures.inc({ error_type: errorType });
}
