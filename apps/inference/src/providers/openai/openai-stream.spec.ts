import { describe, expect, it } from 'vitest';
import { testEndpoint } from '../../testing/test-endpoint.js';
import { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { StreamEvent } from '../provider-adapter.js';
import { buildOpenAiStreamBody } from './openai-request.js';
import { openAiStreamEvents } from './openai-stream.js';

async function* pieces(...texts: string[]): AsyncGenerator<string> {
  for (const text of texts) yield text;
}

async function collect(text: AsyncIterable<string>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of openAiStreamEvents('sim', text)) events.push(event);
  return events;
}

// OpenAI's documented streaming example (chat-completions reference, "Streaming"), with usage.
const documented = [
  'data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}\n\n',
  'data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":null}\n\n',
  'data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}\n\n',
  'data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}\n\n',
  'data: [DONE]\n\n',
];

describe('OpenAI SSE stream to StreamEvents', () => {
  it('maps the documented stream to chunk events and one final usage event', async () => {
    const events = await collect(pieces(...documented));
    expect(events).toEqual([
      {
        type: 'chunk',
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, native_finish_reason: null, logprobs: null }],
        systemFingerprint: 'fp_44709d6fcb',
        serviceTier: null,
      },
      {
        type: 'chunk',
        choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null, native_finish_reason: null, logprobs: null }],
        systemFingerprint: 'fp_44709d6fcb',
        serviceTier: null,
      },
      {
        type: 'chunk',
        choices: [{ index: 0, delta: {}, finish_reason: 'stop', native_finish_reason: 'stop', logprobs: null }],
        systemFingerprint: 'fp_44709d6fcb',
        serviceTier: null,
      },
      { type: 'usage', usage: { promptTokens: 9, completionTokens: 1, cachedTokens: 0, reasoningTokens: 0, estimated: false } },
    ]);
  });

  it('parses events split anywhere across network reads', async () => {
    const whole = documented.join('');
    const split = [whole.slice(0, 7), whole.slice(7, 301), whole.slice(301, 302), whole.slice(302)];
    expect(await collect(pieces(...split))).toEqual(await collect(pieces(whole)));
  });

  it("keeps a host's own finish reason as native and maps it onto OpenAI's set", async () => {
    const events = await collect(pieces('data: {"choices":[{"index":0,"delta":{},"finish_reason":"end_turn"}]}\n\n', 'data: [DONE]\n\n'));
    expect(events[0]).toMatchObject({ choices: [{ finish_reason: 'stop', native_finish_reason: 'end_turn' }] });
  });

  it('throws a non-retryable failure when the stream ends without [DONE]', async () => {
    const error = await collect(pieces(documented[0]!, documented[1]!)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamFailure);
    expect(error).toMatchObject({ retryable: false, gatewayError: { status: 502, errorType: 'provider_unavailable' } });
  });

  it('maps an error data frame or error event to its canonical type', async () => {
    const overloaded = await collect(
      pieces(documented[0]!, 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'),
    ).catch((caught: unknown) => caught);
    expect(overloaded).toMatchObject({ retryable: false, gatewayError: { status: 503, errorType: 'provider_overloaded' } });
    const rateLimited = await collect(
      pieces('data: {"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}\n\n'),
    ).catch((caught: unknown) => caught);
    expect(rateLimited).toMatchObject({ gatewayError: { status: 429, errorType: 'rate_limit_exceeded' } });
  });

  it('throws on a frame that is not JSON', async () => {
    const error = await collect(pieces('data: {oops\n\n', 'data: [DONE]\n\n')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'protocol', retryable: false });
  });
});

describe('OpenAI-format streaming request', () => {
  it('asks for the usage chunk whatever the client said and keeps its other stream options', () => {
    const upstream = buildOpenAiStreamBody(
      { model: 'sim/x', messages: [], stream: true, stream_options: { include_usage: false, include_obfuscation: false }, session_id: 's' },
      testEndpoint('gpt-4o-mini'),
    );
    expect(upstream).toEqual({
      model: 'gpt-4o-mini',
      messages: [],
      stream: true,
      stream_options: { include_usage: true, include_obfuscation: false },
    });
  });
});
