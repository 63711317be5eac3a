import { IsString, Matches } from 'class-validator';
import { ChatCreateRequest } from './chat.messages.js';

/** What a stream id looks like: the gateway mints it (a UUID); bounded so it cannot bloat a subject or a map. */
const STREAM_ID = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * Gateway -> inference on SUBJECTS.inference.chatStream: a streamed chat completion. The
 * gateway names the stream so it can cancel it (EVENTS.callCancelled) without knowing
 * which replica runs it.
 */
export class ChatStreamRequest<Body extends object = Record<string, unknown>> extends ChatCreateRequest<Body> {
  @IsString()
  @Matches(STREAM_ID)
  streamId!: string;
}

/**
 * Gateway -> every inference replica (EVENTS.callCancelled, no queue group): the client of
 * this call (streamed or not) went away, so the replica running it aborts the provider call.
 */
export class CallCancelledEvent {
  @IsString()
  @Matches(STREAM_ID)
  streamId!: string;
}
