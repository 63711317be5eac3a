import { EventStreamCodec, getChunkedStream } from '@smithy/core/event-streams';

type Message = ReturnType<EventStreamCodec['decode']>;

const toUtf8 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
const fromUtf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/**
 * The Bedrock client's event-stream marshaller (its `eventStreamSerdeProvider`): the SDK's own
 * framing and message decoder (`getChunkedStream`, `EventStreamCodec`), then each event's JSON
 * payload parsed as it is, keyed by its `:event-type` (the shape of ConverseStreamOutput).
 * The SDK's default runs every event through its schema deserializer and four more async
 * generators, which made a Bedrock chunk cost 3-4× an OpenAI one; the fields read
 * from these events are plain JSON (numbers, strings; `redactedContent` stays base64).
 * Exceptions are thrown as the SDK throws them: an Error named as its class (`ThrottlingException`).
 */
export class JsonEventStreamMarshaller {
  private readonly codec = new EventStreamCodec(toUtf8, fromUtf8);

  deserialize(body: AsyncIterable<Uint8Array>, _schemaDeserializer: unknown): AsyncIterable<Record<string, unknown>> {
    return this.events(body);
  }

  serialize(): never {
    throw new Error('Converse streams send no events');
  }

  private async *events(body: AsyncIterable<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
    for await (const bytes of getChunkedStream(body)) {
      const message = this.codec.decode(bytes);
      const kind = header(message, ':message-type');
      if (kind === 'event') yield { [header(message, ':event-type') ?? '$unknown']: payload(message) };
      else if (kind === 'exception') {
        const detail = payload(message) as { message?: string; Message?: string };
        // The header names the union member (`throttlingException`); the SDK names its error class (`ThrottlingException`).
        const type = header(message, ':exception-type') ?? 'error';
        throw Object.assign(new Error(detail.message ?? detail.Message ?? 'Unknown'), { name: type[0]!.toUpperCase() + type.slice(1) });
      } else if (kind === 'error')
        throw Object.assign(new Error(header(message, ':error-message') ?? 'UnknownError'), {
          name: header(message, ':error-code') ?? 'Error',
        });
      else throw Object.assign(new Error(`unrecognised event-stream message type ${String(kind)}`), { name: 'ProtocolError' });
    }
  }
}

function header(message: Message, name: string): string | undefined {
  const value = message.headers[name]?.value;
  return typeof value === 'string' ? value : undefined;
}

function payload(message: Message): unknown {
  if (message.body.byteLength === 0) return {};
  try {
    return JSON.parse(toUtf8(message.body));
  } catch {
    throw Object.assign(new Error('an event-stream payload was not JSON'), { name: 'ProtocolError' });
  }
}
