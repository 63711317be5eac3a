import { counter, histogram } from '@gw/metrics';
import type { Charge } from '../pricing/charge.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import type { AttemptTracker } from '../routing/attempt-tracker.js';
import type { RouteAttempt } from '../routing/route-types.js';

/*
 * Inference's generation series (issue 16). Labels come from the catalog (model, provider) and
 * small fixed sets (byok, status, direction): bounded whatever the traffic.
 */
const generations = counter('inference_generations_total', 'Generations settled (billed), by model, provider, BYOK and status', [
  'model',
  'provider',
  'byok',
  'status',
]);
const tokens = counter('inference_tokens_total', 'Tokens billed, by model, provider, BYOK and direction (prompt / completion)', [
  'model',
  'provider',
  'byok',
  'direction',
]);
const cost = counter('inference_cost_credits_total', 'Credits charged to workspaces (the gateway fee only on BYOK)', [
  'model',
  'provider',
  'byok',
]);
const upstreamCost = counter('inference_upstream_cost_credits_total', 'What the provider calls cost at catalog prices', [
  'model',
  'provider',
  'byok',
]);
const upstreamLatency = histogram(
  'inference_upstream_latency_seconds',
  "Answering attempt's time to its answer (non-streamed) or to its response head (streamed)",
  ['provider'],
);
const throughput = histogram(
  'inference_completion_tokens_per_second',
  "Completion tokens over the answering attempt's whole time",
  ['provider'],
  [1, 5, 10, 25, 50, 100, 200, 400, 800, 1600],
);

/** One settled generation, as GenerationAccounting.settle() priced it. */
export function recordGeneration(
  attempt: RouteAttempt,
  tracker: AttemptTracker,
  usage: NormalizedUsage,
  charge: Charge,
  status: 'succeeded' | 'failed',
): void {
  const labels = { model: attempt.modelId, provider: attempt.endpoint.provider.id, byok: String(charge.isByok) };
  generations.inc({ ...labels, status });
  tokens.inc({ ...labels, direction: 'prompt' }, usage.promptTokens);
  tokens.inc({ ...labels, direction: 'completion' }, usage.completionTokens);
  cost.inc(labels, charge.charged.toNumber());
  upstreamCost.inc(labels, charge.upstream.total.toNumber());
  const answering = tracker.records.at(-1);
  if (!answering) return;
  upstreamLatency.observe({ provider: labels.provider }, answering.latencyMs / 1000);
  const generationSeconds = (performance.now() - answering.startedAt) / 1000;
  if (status === 'succeeded' && usage.completionTokens > 0 && generationSeconds > 0)
    throughput.observe({ provider: labels.provider }, usage.completionTokens / generationSeconds);
}
