import type { MsgHdrs } from '@nats-io/transport-node';
import { STREAM_END_HEADERS, STREAM_FRAMES_HEADERS } from './rpc-stream.js';
import type { StreamWindow } from './stream-window.js';

/** A coalesced message stops growing here, far below max_payload, so one message never holds up the connection for long. */
export const MAX_COALESCED_CHARS = 64 * 1024;

type Respond = (data: string, options: { headers?: MsgHdrs }) => unknown;

/**
 * The server's side of stream frames: the frames a handler emits go out as the
 * bodies of reply messages, without Nest's JSON packet around them. Frames emitted in the same
 * turn of the event loop share one message: the first is held only until the work already
 * queued for this turn (the provider read that produced it) is done, never across an I/O wait,
 * so coalescing does not delay the first token; a message stops growing at
 * `MAX_COALESCED_CHARS`. The first message is marked `Gw-Stream: frames`, the next ones carry
 * no header; `end()` sends what is held with `Gw-Stream: end`.
 */
export class StreamFrameWriter {
  private held = '';
  private scheduled = false;
  private marked = false;
  private ended = false;

  constructor(
    private readonly respond: Respond,
    /**
     * Flow control: the bytes sent are counted against the caller's window; the first
     * message names the credit subject (`firstHeaders`).
     */
    private readonly flow?: { window: StreamWindow; firstHeaders: MsgHdrs },
  ) {}

  get isEnded(): boolean {
    return this.ended;
  }

  write(frame: string): void {
    if (this.ended) return;
    this.held = this.held.length === 0 ? frame : this.held + frame;
    if (this.held.length >= MAX_COALESCED_CHARS) {
      this.flush();
    } else if (!this.scheduled) {
      this.scheduled = true;
      // After the current promise jobs (Nest hands packets over one await apart), before any I/O.
      process.nextTick(this.onTick);
    }
  }

  /** What is held goes out now (before an error packet, which must follow it). */
  flush(): void {
    if (this.held.length === 0) return;
    const data = this.held;
    this.held = '';
    if (this.flow) this.flow.window.sent(Buffer.byteLength(data));
    if (this.marked) {
      this.respond(data, {});
    } else {
      this.marked = true;
      this.respond(data, { headers: this.flow?.firstHeaders ?? STREAM_FRAMES_HEADERS });
    }
  }

  /** The last message: what is held (maybe nothing) and the end. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const data = this.held;
    this.held = '';
    this.respond(data, { headers: STREAM_END_HEADERS });
  }

  private readonly onTick = (): void => {
    this.scheduled = false;
    if (!this.ended) this.flush();
  };
}
