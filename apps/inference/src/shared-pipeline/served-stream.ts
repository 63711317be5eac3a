import { Injectable } from '@nestjs/common';
import type { Principal } from '@gw/contracts';
import { ServedStream } from '@gw/messaging';
import { SpendHolds } from '../billing/spend-holds.service.js';
import { currentStreamGuard } from '../idempotency/idempotent-run.js';
import { takeStreamTap } from '../response-cache/cache-captures.js';
import { UpstreamFailure } from '../upstream/upstream-failure.js';
import { CallCancellations } from './call-cancellations.js';

// The doors' framings are shared with the gateway, which replays cached streams in them too.
import { ALREADY_FRAMED, type PacketFrame } from '@gw/usage';
export { ALREADY_FRAMED, SSE_DATA_FRAME, type PacketFrame } from '@gw/usage';

/** One streamed front door's run: its packets to `emit`, until `signal` aborts. */
type StreamRun = (signal: AbortSignal, emit: (packet: string) => void) => Promise<void>;

/** What a streamed request names: who pays, and the id the gateway cancels it by. */
interface StreamedRequest {
  principal: Principal;
  streamId: string;
}

/**
 * How every streamed front door is served: its run holds spend for the request's principal
 * until it ends, and is cancelled by the gateway's stream id (`withCancellation`).
 */
@Injectable()
export class ServedStreams {
  constructor(
    private readonly cancellations: CallCancellations,
    private readonly holds: SpendHolds,
  ) {}

  serve(request: StreamedRequest, frame: PacketFrame, run: StreamRun): ServedStream {
    return withCancellation(
      this.cancellations,
      request.streamId,
      (signal, emit) => this.holds.around(request.principal, () => run(signal, emit)),
      frame,
    );
  }
}

/**
 * A streamed front door's run as the stream the bus serves: registered under the gateway's
 * stream id so a cancellation aborts the provider call, each packet written as its client's
 * bytes (through `frame`), failing with the GatewayError the gateway renders (the envelope
 * before the first packet, an error event after it). A request with an Idempotency-Key replays
 * its stored packets or keeps its run for retries; a stream the response cache stores is tapped.
 * With a flow-control window a cancellation releases a stream paused for credit, so it ends.
 */
export function withCancellation(cancellations: CallCancellations, streamId: string, run: StreamRun, frame: PacketFrame): ServedStream {
  // Read while the handler builds the stream, inside the guard's context.
  const guard = currentStreamGuard();
  return new ServedStream(async (out) => {
    const controller = cancellations.register(streamId);
    // The server gave the stream up (its shutdown's grace period ended): the provider call too.
    out.signal.addEventListener('abort', () => controller.abort(), { once: true });
    const { window } = out;
    if (window) {
      if (controller.signal.aborted) window.release();
      else controller.signal.addEventListener('abort', () => window.release(), { once: true });
    }
    const send = frame === ALREADY_FRAMED ? (packet: string) => out.write(packet) : (packet: string) => out.write(frame(packet));
    // A stream the response cache stores: its packets are kept as they leave.
    const tap = takeStreamTap(streamId);
    const emit = tap
      ? (packet: string) => {
          tap.packet(packet);
          send(packet);
        }
      : send;
    try {
      await (guard ? guard.run(controller.signal, emit, run, () => window?.whenOpen()) : run(controller.signal, emit));
      // Stored before the stream's end leaves, so the client's next identical request finds it.
      if (tap) await tap.finish().catch(() => undefined);
    } catch (error) {
      throw error instanceof UpstreamFailure ? error.gatewayError : error;
    } finally {
      cancellations.release(streamId, controller);
    }
  });
}
