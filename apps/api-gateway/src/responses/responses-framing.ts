import { ResponsesStream, type ResponsesRequestDto } from '@gw/contracts';
import { ALREADY_FRAMED } from '@gw/usage';
import { toEnvelope } from '@gw/errors';
import type { StreamFraming } from '../chat/inference-stream.relay.js';

/**
 * The Responses API's stream: inference sends each semantic event already framed
 * (`event: <type>\ndata: <json>\n\n`) and ends after `response.completed`, `.incomplete` or
 * `.failed`. A failure the gateway sees itself after the first event (the stream stalled,
 * NATS went away) still ends with `response.failed`: the response of the first event
 * (`response.created`) marked failed, with the error and its canonical type, after an `error`
 * event, numbered on from the last event sent.
 */
export const RESPONSES_FRAMING: StreamFraming<ResponsesRequestDto> = {
  message: ResponsesStream,
  end: '',
  cache: { door: 'responses', frame: ALREADY_FRAMED },
  errorFrame: (firstPacket, error, lastPacket) => {
    const created = firstPacket === undefined ? undefined : dataOf(firstPacket);
    // A packet of frames may hold several events: the last one sent is its last.
    const previous = lastPacket === undefined ? undefined : dataOf(lastPacket, 'last');
    const sequence = typeof previous?.sequence_number === 'number' ? previous.sequence_number + 1 : 0;
    const { error: envelope } = toEnvelope(error);
    // Without `output`, clients keep the items the stream already announced.
    const { output: _output, ...response } = (created?.response ?? {}) as Record<string, unknown>;
    const failed = {
      type: 'response.failed',
      sequence_number: sequence + 1,
      response: {
        ...response,
        status: 'failed',
        completed_at: Math.floor(Date.now() / 1000),
        error: { code: error.errorType, message: error.message, metadata: envelope.metadata },
        error_type: error.errorType,
      },
    };
    const errorEvent = { type: 'error', sequence_number: sequence, code: error.errorType, message: error.message, param: null };
    return `event: error\ndata: ${JSON.stringify(errorEvent)}\n\nevent: response.failed\ndata: ${JSON.stringify(failed)}\n\n`;
  },
};

/** The JSON of the first (or last) `data:` line of one or more SSE frames. */
function dataOf(frames: string, which: 'first' | 'last' = 'first'): Record<string, unknown> | undefined {
  const lines = frames.split('\n').filter((candidate) => candidate.startsWith('data: '));
  const line = which === 'first' ? lines[0] : lines.at(-1);
  if (!line) return undefined;
  try {
    return JSON.parse(line.slice('data: '.length)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
