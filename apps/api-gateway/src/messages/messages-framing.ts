import { MessagesStream, type MessagesRequestDto } from '@gw/contracts';
import { ALREADY_FRAMED } from '@gw/usage';
import type { StreamFraming } from '../chat/inference-stream.relay.js';
import { messagesErrorBodyOf } from './anthropic-error.js';
import { streamWarningHeaderOf } from './gateway-warnings.js';

/** Anthropic's stream: inference sends each event already framed; a later failure is Anthropic's `event: error`. */
export const MESSAGES_FRAMING: StreamFraming<MessagesRequestDto> = {
  message: MessagesStream,
  end: '',
  cache: { door: 'messages', frame: ALREADY_FRAMED },
  errorFrame: (_first, failure) => `event: error\ndata: ${JSON.stringify(messagesErrorBodyOf(failure))}\n\n`,
  headersOf: streamWarningHeaderOf,
};
