import type { UsageRecordedEvent } from '@gw/contracts';
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One run of a request with an `Idempotency-Key`. Its generations' usage events are kept here
 * instead of being published at once: they leave only after the outcome that answers the key's
 * retries is stored, so no usage is billed whose answer a retry could not get.
 */
export class IdempotentRun {
  readonly events: UsageRecordedEvent[] = [];

  defer(event: UsageRecordedEvent): void {
    this.events.push(event);
  }
}

const runs = new AsyncLocalStorage<IdempotentRun>();

export function runIdempotently<T>(run: IdempotentRun, work: () => T): T {
  return runs.run(run, work);
}

/** The idempotent run the current code belongs to, if any (usage publishing asks). */
export function currentIdempotentRun(): IdempotentRun | undefined {
  return runs.getStore();
}

/**
 * A streamed front door's idempotency, handed from its controller to `withCancellation` (which
 * builds the stream synchronously inside the handler, and runs it later).
 */
export interface StreamGuard {
  /** `whenOpen`: the flow-control window's wait, if the stream has one (a replay sends at the client's pace). */
  run(
    signal: AbortSignal,
    emit: (packet: string) => void,
    work: (signal: AbortSignal, emit: (packet: string) => void) => Promise<void>,
    whenOpen?: () => Promise<void> | undefined,
  ): Promise<void>;
}

const guards = new AsyncLocalStorage<StreamGuard>();

export function withStreamGuard<T>(guard: StreamGuard | undefined, build: () => T): T {
  return guard ? guards.run(guard, build) : build();
}

/** Read by `withCancellation` while it builds the stream. */
export function currentStreamGuard(): StreamGuard | undefined {
  return guards.getStore();
}
