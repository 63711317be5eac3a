import { currentStreamWindow, useStreamFrames } from '@gw/messaging';
import { Observable } from 'rxjs';
import { UpstreamFailure } from '../upstream/upstream-failure.js';
import type { StreamCancellations } from './stream-cancellations.js';
import { currentStreamGuard } from '../idempotency/idempotent-run.js';
import { takeStreamTap } from '../response-cache/cache-captures.js';

/** A front door's packet as its client's bytes: a chat chunk becomes a `data:` line; Messages and Responses packets are framed already. */
export type PacketFrame = (packet: string) => string;

/** OpenAI's chat-completions SSE line for one serialised chunk. */
export const SSE_DATA_FRAME: PacketFrame = (packet) => `data: ${packet}\n\n`;

/** Packets that are their client's bytes already (Anthropic's and the Responses API's SSE events). */
export const ALREADY_FRAMED: PacketFrame = (packet) => packet;

/**
 * A streamed front door's run as the Observable Nest replies with, packet per emission:
 * registered under the gateway's stream id so a cancellation aborts the provider call, and
 * failing with the GatewayError the gateway renders (envelope before the first packet, an
 * error event after it).
 *
 * When the gateway accepts stream frames (ADR 0067), each packet is written as its client's
 * bytes (through `frame`) to the NATS server's frame sink, which sends them raw, those of one
 * turn in one message, without Nest's JSON packet; the Observable then only ends or fails the
 * stream. An older gateway gets the packets as before, unframed. With a flow-control window
 * (ADR 0084) the provider's events wait for the gateway's credit (`openFirstEvent`); a
 * cancellation releases a paused stream so it ends.
 */
export function observeStream(
  cancellations: StreamCancellations,
  streamId: string,
  run: (signal: AbortSignal, emit: (packet: string) => void) => Promise<void>,
  frame: PacketFrame,
): Observable<string> {
  // Inside the handler, so the request it answers is the current one.
  const sink = useStreamFrames();
  const window = currentStreamWindow();
  // A request with an Idempotency-Key: its stored packets replayed, or its run kept for retries.
  const guard = currentStreamGuard();
  return new Observable<string>((subscriber) => {
    const controller = cancellations.register(streamId);
    // A cancelled stream paused for credit (ADR 0084) goes on at once, to see the abort and end.
    if (window) {
      if (controller.signal.aborted) window.release();
      else controller.signal.addEventListener('abort', () => window.release(), { once: true });
    }
    const send: (packet: string) => void = !sink
      ? (packet) => subscriber.next(packet)
      : frame === ALREADY_FRAMED
        ? (packet) => sink.write(packet)
        : (packet) => sink.write(frame(packet));
    // A stream the response cache stores: its packets are kept as they leave.
    const tap = takeStreamTap(streamId);
    const emit = tap
      ? (packet: string) => {
          tap.packet(packet);
          send(packet);
        }
      : send;
    const end = (): void => {
      // The last frames (the usage chunk) and the end in one message, not two.
      sink?.end();
      subscriber.complete();
    };
    (guard ? guard.run(controller.signal, emit, run, () => window?.whenOpen()) : run(controller.signal, emit))
      .then(
        () => (tap ? tap.finish().then(end, end) : end()),
        (error: unknown) => subscriber.error(error instanceof UpstreamFailure ? error.gatewayError : error),
      )
      .finally(() => cancellations.release(streamId, controller));
    // Unsubscribing (service shutdown) must not leave the provider call running.
    return () => controller.abort();
  });
}
