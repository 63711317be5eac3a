import { currentStreamWindow, gatedByWindow } from '@gw/messaging';
import type { DebugTimings } from '../routing/routing-metadata.js';
import { beforeFirstByte, emptyStreamFailure, UpstreamFailure } from '../upstream/upstream-failure.js';

/** A provider stream that has produced its first answering event. */
export interface OpenedStream<E> {
  first: IteratorResult<E>;
  events: AsyncIterator<E>;
}

/**
 * Starts one attempt's stream and waits for its first event, so a failure before it can
 * still go to the next endpoint (nothing has reached the client). A stream whose first event
 * is its end, or no answer (`answers` false), answered nothing: a retryable 502. On a stream of
 * frames with a flow-control window, the events after the first wait for the window.
 */
export async function openFirstEvent<E>(
  provider: string,
  start: () => Promise<AsyncIterable<E>>,
  answers: (first: E) => boolean,
  timings?: DebugTimings,
): Promise<OpenedStream<E>> {
  try {
    timings?.beginAttempt();
    timings?.mark('adapter_request');
    const events = (await start())[Symbol.asyncIterator]();
    timings?.mark('upstream_headers_received');
    const first = await events.next();
    if (first.done || !answers(first.value)) {
      await events.return?.();
      throw emptyStreamFailure(provider);
    }
    // Flow control: while the gateway holds a window of this stream unread, the next
    // event is not pulled, so the provider's body is not read (back-pressure to the provider).
    const window = currentStreamWindow();
    return { first, events: window ? gatedByWindow(events, window) : events };
  } catch (error) {
    throw error instanceof UpstreamFailure ? beforeFirstByte(error) : error;
  }
}
