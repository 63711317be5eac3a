import { counter, gauge } from '@gw/metrics';
import type { EndpointHealthEntry, EndpointHealthTracker } from './endpoint-health.js';
import type { UpstreamFailure } from '../upstream/upstream-failure.js';
import type { RouteAttempt } from './route-types.js';

const attemptFailures = counter('inference_attempt_failures_total', 'Provider calls that failed, by provider and canonical error type', [
  'provider',
  'error_type',
  'retryable',
]);
const fallbacks = counter('inference_fallbacks_total', 'Requests answered by a later attempt than the first, by model', ['model']);
const routeFailures = counter('inference_route_failures_total', 'Requests no attempt could answer, by canonical error type', [
  'error_type',
]);

export function recordAttemptFailure(attempt: RouteAttempt, failure: UpstreamFailure): void {
  attemptFailures.inc({
    provider: attempt.endpoint.provider.id,
    error_type: failure.gatewayError.errorType,
    retryable: String(failure.retryable),
  });
}

export function recordAnswered(attempt: RouteAttempt, attemptNumber: number): void {
  if (attemptNumber > 1) fallbacks.inc({ model: attempt.modelId });
}

export function recordRouteFailure(errorType: string): void {
  routeFailures.inc({ error_type: errorType });
}

/**
 * Endpoint health as gauges (issue 16), read from the replica's tracker at each scrape: healthy
 * (1/0), smoothed latency and throughput, failures in a row, and the shared cooldown (failing, or
 * the wait the provider asked for on the gateway's own key). Labels `provider` and `upstream_model` come from the catalog.
 */
export function registerEndpointHealthGauges(health: EndpointHealthTracker): void {
  const labels = ['provider', 'upstream_model'] as const;
  const each = (set: (labels: { provider: string; upstream_model: string }, entry: EndpointHealthEntry) => void) => {
    for (const entry of health.endpoints()) {
      const slash = entry.endpointKey.indexOf('/');
      set({ provider: entry.endpointKey.slice(0, slash), upstream_model: entry.endpointKey.slice(slash + 1) }, entry);
    }
  };
  gauge(
    'inference_endpoint_healthy',
    'Whether routing takes the endpoint as healthy (1) or skips it after failures in a row (0)',
    labels,
    function () {
      this.reset();
      each((names, entry) => this.set(names, entry.healthy ? 1 : 0));
    },
  );
  gauge('inference_endpoint_consecutive_failures', 'Failed calls in a row to the endpoint', labels, function () {
    this.reset();
    each((names, entry) => this.set(names, entry.consecutiveFailures));
  });
  gauge(
    'inference_endpoint_latency_seconds',
    'Smoothed time to the answer (streams: to the first byte) of the endpoint',
    labels,
    function () {
      this.reset();
      each((names, entry) => entry.latencyMs !== undefined && this.set(names, entry.latencyMs / 1000));
    },
  );
  gauge('inference_endpoint_throughput_tokens_per_second', 'Smoothed completion tokens per second of the endpoint', labels, function () {
    this.reset();
    each((names, entry) => entry.throughput !== undefined && this.set(names, entry.throughput));
  });
  gauge(
    'inference_endpoint_cooldown_seconds',
    'Seconds left of the endpoint cooldown (shared by every replica): failures in a row, or the retry-after on the gateway key',
    labels,
    function () {
      this.reset();
      each((names, entry) => this.set(names, entry.coolingForMs / 1000));
    },
  );
  gauge(
    'inference_endpoint_cooling',
    "Whether the endpoint is cooling down (1), by why, on any replica's word",
    [...labels, 'reason'],
    function () {
      this.reset();
      each((names, entry) => entry.coolingReason && this.set({ ...names, reason: entry.coolingReason }, 1));
    },
  );
}
