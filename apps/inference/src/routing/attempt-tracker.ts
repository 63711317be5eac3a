import type { UpstreamFailure } from '../upstream/upstream-failure.js';
import type { RouteAttempt } from './route-types.js';

export interface AttemptRecord {
  attempt: RouteAttempt;
  outcome: 'succeeded' | 'failed';
  /** performance.now() when the attempt began. */
  startedAt: number;
  /** Milliseconds from the start of this attempt to its answer (or first byte) or failure. */
  latencyMs: number;
  failure?: UpstreamFailure;
}

/**
 * What happened while a request was routed: each attempt in order, with its outcome. It is
 * the source of `service_metadata` (attempt, endpoints, summary, generation_time) and of the
 * usage event's latency, for the non-streaming and the streaming paths alike.
 */
export class AttemptTracker {
  readonly startedAt = performance.now();
  readonly startedAtEpochMs = Date.now();
  readonly records: AttemptRecord[] = [];
  private attemptStartedAt = this.startedAt;

  begin(): void {
    this.attemptStartedAt = performance.now();
  }

  succeeded(attempt: RouteAttempt): AttemptRecord {
    return this.push({
      attempt,
      outcome: 'succeeded',
      startedAt: this.attemptStartedAt,
      latencyMs: performance.now() - this.attemptStartedAt,
    });
  }

  failed(attempt: RouteAttempt, failure: UpstreamFailure): AttemptRecord {
    return this.push({
      attempt,
      outcome: 'failed',
      startedAt: this.attemptStartedAt,
      latencyMs: performance.now() - this.attemptStartedAt,
      failure,
    });
  }

  /** 1-based number of the attempt that answered (or of the last one tried). */
  get attemptCount(): number {
    return this.records.length;
  }

  get selected(): RouteAttempt | undefined {
    return this.records.find((record) => record.outcome === 'succeeded')?.attempt;
  }

  /** Whole milliseconds since routing began. */
  elapsedMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  private push(record: AttemptRecord): AttemptRecord {
    this.records.push(record);
    return record;
  }
}
