import { Injectable } from '@nestjs/common';
import type { BatchWakeReason } from '@gw/contracts';

type Listener = () => void;
type Announcer = (reason: BatchWakeReason) => void;

/** The reasons that wake the sweeps; the others wake the line runner. */
const SWEEP_REASONS: ReadonlySet<BatchWakeReason> = new Set(['submitted', 'cancelled']);

/**
 * Wake-ups of the worker: an idle replica polls only every BATCH_IDLE_POLL_MS, so
 * what makes work says so at once. A submitted or cancelled batch wakes the sweeps (which start
 * or cancel it); a batch started, or lines given back by an expired lease, wake the line runner.
 * What happens here wakes this replica and is announced (`onAnnounce`: BatchWakeEvents publishes
 * `events.batches.changed`); what another replica announced wakes this one only (`heard`), so an
 * event is never passed on again.
 */
@Injectable()
export class BatchSignals {
  private readonly changed = new Set<Listener>();
  private readonly runnable = new Set<Listener>();
  private readonly announcers = new Set<Announcer>();

  /** A batch was submitted or cancelled on this replica. */
  batchChanged(reason: 'submitted' | 'cancelled'): void {
    this.wake(reason);
    this.announce(reason);
  }

  /** Lines may be runnable now: a batch was started here, or expired leases given back. */
  linesRunnable(reason: 'started' | 'lines'): void {
    this.wake(reason);
    this.announce(reason);
  }

  /** Another replica announced it: wakes this replica, announces nothing. */
  heard(reason: BatchWakeReason): void {
    this.wake(reason);
  }

  onBatchChanged(listener: Listener): () => void {
    this.changed.add(listener);
    return () => this.changed.delete(listener);
  }

  onLinesRunnable(listener: Listener): () => void {
    this.runnable.add(listener);
    return () => this.runnable.delete(listener);
  }

  /** Told of every wake-up made on this replica (not of those heard). */
  onAnnounce(announcer: Announcer): () => void {
    this.announcers.add(announcer);
    return () => this.announcers.delete(announcer);
  }

  private wake(reason: BatchWakeReason): void {
    for (const listener of SWEEP_REASONS.has(reason) ? this.changed : this.runnable) listener();
  }

  private announce(reason: BatchWakeReason): void {
    for (const announce of this.announcers) announce(reason);
  }
}
