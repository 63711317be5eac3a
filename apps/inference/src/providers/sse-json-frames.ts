import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { midStreamFailure, transportFailure, truncatedStreamFailure } from '../upstream/upstream-failure.js';

/** One server-sent event of a provider stream: its `event:` name and its data, a JSON object. */
export interface JsonStreamFrame<T extends object> {
  event: string | undefined;
  data: T;
}

/** How a provider's stream ends: a data line that is not a frame (OpenAI's `[DONE]`), or a terminal frame. */
export interface StreamEnd<T extends object> {
  sentinel?: string;
  isTerminal?: (frame: JsonStreamFrame<T>) => boolean;
}

/**
 * The one SSE reader of every provider adapter: the body's text through eventsource-parser,
 * each event's data parsed as a JSON object, up to the provider's end (the terminal frame is
 * yielded; a sentinel is not). After the end the rest of the body is drained unparsed, so the
 * connection goes back to the pool. Data that is not a JSON object, or a body that ends first,
 * throws a non-retryable UpstreamFailure (the answer has begun and cannot move elsewhere).
 */
export async function* sseJsonFrames<T extends object>(
  provider: string,
  text: AsyncIterable<string>,
  end: StreamEnd<T>,
): AsyncGenerator<JsonStreamFrame<T>> {
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  let done = false;
  for await (const piece of text) {
    if (done) continue;
    parser.feed(piece);
    for (let i = 0; i < messages.length && !done; i++) {
      const message = messages[i]!;
      if (end.sentinel !== undefined && message.data === end.sentinel) {
        done = true;
        break;
      }
      const frame: JsonStreamFrame<T> = { event: message.event, data: parseJsonObject<T>(provider, message.data) };
      if (end.isTerminal?.(frame)) done = true;
      yield frame;
    }
    messages.length = 0;
  }
  if (!done) throw truncatedStreamFailure(provider);
}

function parseJsonObject<T>(provider: string, data: string): T {
  try {
    const parsed: unknown = JSON.parse(data);
    if (parsed !== null && typeof parsed === 'object') return parsed as T;
  } catch {
    // reported below
  }
  throw midStreamFailure(transportFailure(provider, 'protocol', 'sent a stream event that is not JSON'));
}
