import type { UsageRecordedEvent } from '@gw/contracts';

/** Sends 1..maxBatch events as one message; resolves once JetStream has acknowledged it (stored, or a known duplicate). */
export type UsagePublish = (events: UsageRecordedEvent[]) => Promise<void>;

export interface UsageOutboxOptions {
  /** Events held (queued, in flight or waiting to retry); past it, new events are dropped. */
  maxPending: number;
  /** Publishes in flight at once. */
  concurrency?: number;
  /** Most events in one message; events that queue up while publishes are in flight go out together. */
  maxBatch?: number;
  /**
   * How long a publish waits for more events to join it (off the request path: it delays only
   * the billing record). 0 sends each event at once.
   */
  lingerMs?: number;
  /** First retry delay after a failed publish; doubles up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  onDrop?: (event: UsageRecordedEvent) => void;
  onPublishError?: (error: unknown, events: UsageRecordedEvent[]) => void;
}

export interface UsageOutboxStats {
  pending: number;
  published: number;
  dropped: number;
  retries: number;
}

/**
 * Usage events on their way to JetStream, off the request path: `enqueue` returns at once,
 * and a pump publishes in the background until each event is acknowledged, retrying with
 * backoff while NATS or the stream is unavailable. At most `concurrency` publishes are in
 * flight; events that queue up meanwhile go out together, up to `maxBatch` a message, so under
 * load JetStream stores, and its consumers read and ack, one message per batch instead of one
 * per generation (a lone event still goes out at once, alone). A retried batch may be grouped
 * differently; consumers are idempotent on the generation id, so that never counts twice.
 * Bounded: when `maxPending` events are held, a new one is dropped (and counted)
 * rather than letting memory grow without limit during a long outage. `flush` waits for the
 * queue to empty, for shutdown.
 */
interface Entry {
  event: UsageRecordedEvent;
  /** Told once JetStream acknowledged the event (a request waiting to answer). */
  acknowledged?: () => void;
}

export class UsageOutbox {
  private readonly queue: Entry[] = [];
  private inFlight = 0;
  private waitingRetry = 0;
  private failuresInARow = 0;
  private readonly counts = { published: 0, dropped: 0, retries: 0 };
  private readonly idleWaiters: Array<() => void> = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly concurrency: number;
  private readonly maxBatch: number;
  private readonly lingerMs: number;
  private lingerTimer: NodeJS.Timeout | undefined;
  private inFlightEvents = 0;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;

  constructor(
    private readonly publish: UsagePublish,
    private readonly options: UsageOutboxOptions,
  ) {
    this.concurrency = options.concurrency ?? 4;
    this.maxBatch = options.maxBatch ?? 100;
    this.lingerMs = options.lingerMs ?? 0;
    this.retryDelayMs = options.retryDelayMs ?? 200;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
  }

  /** Queues an event; false when it was dropped because the outbox is full. */
  enqueue(event: UsageRecordedEvent): boolean {
    return this.add({ event });
  }

  /**
   * Queues an event and resolves once JetStream has acknowledged it (the answer
   * waits for this). Rejects at once when the outbox is full. Until acknowledged the event is
   * retried like any other, also after the caller stopped waiting.
   */
  enqueueAndWait(event: UsageRecordedEvent): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.add({ event, acknowledged: resolve })) reject(new Error('usage outbox full'));
    });
  }

  private add(entry: Entry): boolean {
    if (this.pending >= this.options.maxPending) {
      this.counts.dropped++;
      this.options.onDrop?.(entry.event);
      return false;
    }
    this.queue.push(entry);
    if (this.lingerMs === 0 || this.queue.length >= this.maxBatch) this.pump();
    else
      this.lingerTimer ??= setTimeout(() => {
        this.lingerTimer = undefined;
        this.pump();
      }, this.lingerMs);
    return true;
  }

  get pending(): number {
    return this.queue.length + this.inFlightEvents + this.waitingRetry;
  }

  stats(): UsageOutboxStats {
    return { pending: this.pending, ...this.counts };
  }

  /** Resolves when every held event is acknowledged, or after `timeoutMs` (false then). */
  async flush(timeoutMs: number): Promise<boolean> {
    if (this.pending === 0) return true;
    // Shutting down: send what lingers and retry now rather than after the backoff.
    this.failuresInARow = 0;
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.pump();
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([idle, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops retry timers (events still held are lost: call flush first). */
  close(): void {
    clearTimeout(this.lingerTimer);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private pump(): void {
    while (this.inFlight < this.concurrency && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      this.inFlightEvents += batch.length;
      this.publish(batch.map((entry) => entry.event)).then(
        () => {
          this.inFlight--;
          this.inFlightEvents -= batch.length;
          this.failuresInARow = 0;
          this.counts.published += batch.length;
          for (const entry of batch) entry.acknowledged?.();
          this.afterSettle();
        },
        (error: unknown) => {
          this.inFlight--;
          this.inFlightEvents -= batch.length;
          this.options.onPublishError?.(
            error,
            batch.map((entry) => entry.event),
          );
          this.retryLater(batch);
          this.afterSettle();
        },
      );
    }
  }

  private retryLater(batch: Entry[]): void {
    this.counts.retries++;
    this.waitingRetry += batch.length;
    const delay = Math.min(this.maxRetryDelayMs, this.retryDelayMs * 2 ** Math.min(this.failuresInARow, 10));
    this.failuresInARow++;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.waitingRetry -= batch.length;
      this.queue.unshift(...batch);
      this.pump();
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private afterSettle(): void {
    this.pump();
    if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
