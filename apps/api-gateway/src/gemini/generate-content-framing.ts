import { GenerateContentStream } from '@gw/contracts';
import type { StreamFraming } from '../chat/inference-stream.relay.js';
import { googleErrorBodyOf } from './google-error.js';

/** Gemini's SSE stream (`alt=sse`): inference sends each frame already framed; a later failure is Google's `{error}` frame. */
export const GENERATE_CONTENT_FRAMING: StreamFraming = {
  message: GenerateContentStream,
  end: '',
  errorFrame: (_first, failure) => `data: ${JSON.stringify(googleErrorBodyOf(failure))}\n\n`,
};
