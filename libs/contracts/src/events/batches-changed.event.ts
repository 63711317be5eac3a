import { IsIn, IsString, Length } from 'class-validator';

/** What woke the batch worker: the sweeps for a batch submitted or cancelled, the line runner for lines runnable. */
export const BATCH_WAKE_REASONS = ['submitted', 'cancelled', 'started', 'lines'] as const;
export type BatchWakeReason = (typeof BATCH_WAKE_REASONS)[number];

/**
 * Batch -> every batch replica (EVENTS.batchesChanged, no queue group): work
 * was made on one replica, so the idle others look now rather than at their next idle poll.
 * `submitted` / `cancelled` wake the sweeps (which start or cancel the batch), `started` (a
 * batch now runs here) and `lines` (lines given back by an expired lease) wake the line runner.
 * It names no batch: the receiver only polls early, every move is still its own compare-and-set.
 */
export class BatchesChangedEvent {
  @IsIn(BATCH_WAKE_REASONS)
  reason!: BatchWakeReason;

  /** The publishing replica, which ignores its own event (it woke itself already). */
  @IsString()
  @Length(1, 128)
  replica!: string;
}
