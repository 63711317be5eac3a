import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { DatabaseServiceEnv } from '@gw/config';

/** Environment of the batch service (every variable: docs/configuration.md). */
export class BatchEnv extends DatabaseServiceEnv {
  /** Run the worker and the sweeps on this replica (false: answer the API only). */
  @IsIn(['true', 'false']) BATCH_WORKER: 'true' | 'false' = 'true';

  /** Lines one replica runs at once (all workspaces together): batches yield to live traffic. */
  @IsInt() @Min(1) @Max(1_000) BATCH_CONCURRENCY: number = 8;

  /** Lines of one workspace running at once over every replica (fair sharing). */
  @IsInt() @Min(1) @Max(1_000) BATCH_WORKSPACE_CONCURRENCY: number = 4;

  /** How long a claimed line stays leased to its replica without renewal. */
  @IsInt() @Min(1_000) @Max(3_600_000) BATCH_LEASE_MS: number = 60_000;

  /** Pause between two claims when nothing was runnable, and between two sweeps, while batches are active. */
  @IsInt() @Min(10) @Max(60_000) BATCH_POLL_MS: number = 500;

  /**
   * The same pauses when this replica has nothing to do (no line running, no batch before its end):
   * a batch submitted or cancelled on any replica wakes the worker at once (events.batches.changed).
   */
  @IsInt() @Min(10) @Max(300_000) BATCH_IDLE_POLL_MS: number = 5_000;

  /** Time-out of one line's inference call (below the lease, which is renewed meanwhile). */
  @IsInt() @Min(1_000) @Max(600_000) BATCH_LINE_TIMEOUT_MS: number = 120_000;

  /** Tries of a line that failed retryably (429, 502, 503, 504, time-out) before its error is its result. */
  @IsInt() @Min(1) @Max(20) BATCH_LINE_MAX_ATTEMPTS: number = 3;

  /** Submit batches to the provider's own batch API where the model has one ('false': always run lines here). */
  @IsIn(['true', 'false']) BATCH_NATIVE: 'true' | 'false' = 'true';

  /** First wait before polling a provider batch; it doubles after each poll up to the max. */
  @IsInt() @Min(100) @Max(3_600_000) BATCH_NATIVE_POLL_MIN_MS: number = 1_000;
  @IsInt() @Min(100) @Max(3_600_000) BATCH_NATIVE_POLL_MAX_MS: number = 30_000;

  /** Time-out of one call to inference's native-batch subjects (uploads and downloads of whole batches). */
  @IsInt() @Min(1_000) @Max(600_000) BATCH_NATIVE_TIMEOUT_MS: number = 120_000;

  /** Uploads never submitted (the gateway died mid-stream) are dropped after this. */
  @IsInt() @Min(60_000) @IsOptional() BATCH_UPLOAD_ABANDON_MS: number = 3_600_000;
}

export const BATCH_ENV = Symbol('BATCH_ENV');
