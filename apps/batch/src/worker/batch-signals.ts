import { Injectable } from '@nestjs/common';

type Listener = () => void;

/**
 * In-process wake-ups of the worker (ADR 0083): an idle replica polls only every
 * BATCH_IDLE_POLL_MS, so what makes work here says so at once. A submitted or cancelled batch
 * wakes the sweeps (which start it); a batch started here, or lines given back by an expired
 * lease, wake the line runner. Other replicas still find the work by polling.
 */
@Injectable()
export class BatchSignals {
  private readonly changed = new Set<Listener>();
  private readonly runnable = new Set<Listener>();

  /** A batch was submitted or cancelled on this replica. */
  batchChanged(): void {
    for (const listener of this.changed) listener();
  }

  /** Lines may be runnable now. */
  linesRunnable(): void {
    for (const listener of this.runnable) listener();
  }

  onBatchChanged(listener: Listener): () => void {
    this.changed.add(listener);
    return () => this.changed.delete(listener);
  }

  onLinesRunnable(listener: Listener): () => void {
    this.runnable.add(listener);
    return () => this.runnable.delete(listener);
  }
}
