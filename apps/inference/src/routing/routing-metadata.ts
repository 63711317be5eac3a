import type { ServiceMetadataView } from '@gw/contracts';
import type { AttemptTracker } from './attempt-tracker.js';
import { unsupportedParameters } from './parameter-support.js';
import type { RoutePlan } from './route-types.js';

/** Spec §2.6 routing metadata, under `service_metadata` when the caller opted in (§4.5). */
export function buildServiceMetadata(plan: RoutePlan, tracker: AttemptTracker, region: string): ServiceMetadataView {
  const selected = tracker.selected;
  const available = plan.candidates.map((candidate) => ({
    model: candidate.modelId,
    provider: candidate.endpoint.provider.name,
    selected: selected !== undefined && candidate.endpointKey === selected.endpointKey && candidate.modelId === selected.modelId,
  }));
  // Parameters the answering endpoint does not take were dropped from its call: said here.
  const dropped = selected ? unsupportedParameters(selected.endpoint, plan.requestedParameters) : [];
  const summary = summarize(tracker);
  const view: ServiceMetadataView = {
    attempt: tracker.attemptCount,
    endpoints: { available, total: available.length },
    generation_time: tracker.elapsedMs(),
    is_byok: selected?.credential.kind === 'byok',
    region,
    requested: plan.requested,
    strategy: plan.strategy,
    summary: dropped.length > 0 ? `${summary}; dropped unsupported parameters: ${dropped.join(', ')}` : summary,
  };
  if (dropped.length > 0) view.dropped_parameters = dropped;
  return view;
}

/** One line a person can read: which endpoints were tried, how each ended. */
function summarize(tracker: AttemptTracker): string {
  return tracker.records
    .map((record, index) => {
      const { attempt } = record;
      const where = `${attempt.modelId} via ${attempt.endpoint.provider.id} (${attempt.credential.kind === 'byok' ? 'byok' : 'gateway key'})`;
      const how =
        record.outcome === 'succeeded'
          ? 'succeeded'
          : `failed: ${record.failure?.upstreamStatus ?? record.failure?.kind ?? 'error'} ${record.failure?.gatewayError.errorType ?? ''}`.trim();
      return `#${index + 1} ${where} ${how}`;
    })
    .join('; ');
}

/** Spec §2.1 debug timing events (streaming only). */
export type DebugTimingEvent = 'adapter_request' | 'upstream_headers_received' | 'first_token_received' | 'upstream_body_ended';

/**
 * `debug.timings` for a stream that asked for it: each event with milliseconds since the
 * request started (`start_ms`) and the wall clock (`epoch_ms`). Cheap enough to create
 * only when `debug` is set.
 */
export class DebugTimings {
  private readonly start = performance.now();
  readonly entries: Array<{ start_ms: number; event: DebugTimingEvent; epoch_ms: number }> = [];

  /**
   * A new attempt starts its own set: events of an attempt that failed before its first byte
   * are dropped, so the timings describe the attempt that answered, each event once.
   */
  beginAttempt(): void {
    this.entries.length = 0;
  }

  mark(event: DebugTimingEvent): void {
    this.entries.push({ start_ms: Math.round(performance.now() - this.start), event, epoch_ms: Date.now() });
  }
}
