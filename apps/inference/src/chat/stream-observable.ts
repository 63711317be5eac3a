import { Observable } from 'rxjs';
import { UpstreamFailure } from '../upstream/upstream-failure.js';
import type { StreamCancellations } from './stream-cancellations.js';

/**
 * A streamed front door's run as the Observable Nest replies with, packet per emission:
 * registered under the gateway's stream id so a cancellation aborts the provider call, and
 * failing with the GatewayError the gateway renders (envelope before the first packet, an
 * error event after it).
 */
export function observeStream(
  cancellations: StreamCancellations,
  streamId: string,
  run: (signal: AbortSignal, emit: (packet: string) => void) => Promise<void>,
): Observable<string> {
  return new Observable<string>((subscriber) => {
    const controller = cancellations.register(streamId);
    run(controller.signal, (packet) => subscriber.next(packet))
      .then(
        () => subscriber.complete(),
        (error: unknown) => subscriber.error(error instanceof UpstreamFailure ? error.gatewayError : error),
      )
      .finally(() => cancellations.release(streamId, controller));
    // Unsubscribing (service shutdown) must not leave the provider call running.
    return () => controller.abort();
  });
}
