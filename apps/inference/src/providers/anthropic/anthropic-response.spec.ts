import { describe, expect, it } from 'vitest';
import { anthropicErrorDetail } from './anthropic-errors.js';
import { anthropicFinishReason, normalizeAnthropicMessage } from './anthropic-response.js';
import { httpFailure } from '../../upstream/upstream-failure.js';

const options = { excludeReasoning: false, promptText: '' };

describe('normalizeAnthropicMessage', () => {
  it('turns the documented tool_use answer into tool_calls with string arguments', () => {
    // https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview (get_weather example)
    const completion = normalizeAnthropicMessage(
      {
        id: 'msg_01Aq9w938a90dw8q',
        type: 'message',
        stop_reason: 'tool_use',
        content: [
          { type: 'text', text: "I'll check the current weather in San Francisco for you." },
          {
            type: 'tool_use',
            id: 'toolu_01A09q90qw90lq917835lq9',
            name: 'get_weather',
            input: { location: 'San Francisco, CA', unit: 'celsius' },
          },
        ],
        usage: { input_tokens: 472, output_tokens: 89 },
      },
      options,
    );
    expect(completion.upstreamId).toBe('msg_01Aq9w938a90dw8q');
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: "I'll check the current weather in San Francisco for you.",
          refusal: null,
          tool_calls: [
            {
              index: 0,
              id: 'toolu_01A09q90qw90lq917835lq9',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
        native_finish_reason: 'tool_use',
        logprobs: null,
      },
    ]);
    expect(JSON.parse(completion.choices[0]!.message.tool_calls![0]!.function.arguments)).toEqual({
      location: 'San Francisco, CA',
      unit: 'celsius',
    });
    expect(completion.usage).toEqual({
      promptTokens: 472,
      completionTokens: 89,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      estimated: false,
    });
  });

  it('returns thinking as reasoning and signed reasoning_details, as the extended-thinking docs show it', () => {
    // https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking (response example)
    const completion = normalizeAnthropicMessage(
      {
        id: 'msg_1',
        stop_reason: 'end_turn',
        content: [
          {
            type: 'thinking',
            thinking: 'To approach this, let me think about what we know about prime numbers...',
            signature: 'zbbJhbGciOiJFU8zI1NiIsImtakcjsu38219c0.eyJoYXNoIjoiYWJjMTIzIiwiaWF0IjoxNjE0NTM0NTY3fQ....',
          },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP...' },
          { type: 'text', text: 'Yes, there are infinitely many prime numbers such that...' },
        ],
        usage: { input_tokens: 10, output_tokens: 200 },
      },
      options,
    );
    const message = completion.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.content).toBe('Yes, there are infinitely many prime numbers such that...');
    expect(message.reasoning).toBe('To approach this, let me think about what we know about prime numbers...');
    expect(message.reasoning_details).toEqual([
      {
        type: 'reasoning.text',
        text: 'To approach this, let me think about what we know about prime numbers...',
        signature: 'zbbJhbGciOiJFU8zI1NiIsImtakcjsu38219c0.eyJoYXNoIjoiYWJjMTIzIiwiaWF0IjoxNjE0NTM0NTY3fQ....',
        format: 'anthropic-claude-v1',
        index: 0,
      },
      {
        type: 'reasoning.encrypted',
        data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP...',
        format: 'anthropic-claude-v1',
        index: 1,
      },
    ]);
    expect(completion.choices[0]!.finish_reason).toBe('stop');

    const excluded = normalizeAnthropicMessage(
      {
        content: [
          { type: 'thinking', thinking: 'x', signature: 's' },
          { type: 'text', text: 'y' },
        ],
      },
      { ...options, excludeReasoning: true },
    );
    expect(excluded.choices[0]!.message).not.toHaveProperty('reasoning');
    expect(excluded.choices[0]!.message).not.toHaveProperty('reasoning_details');
  });

  it('counts cache reads and writes into prompt tokens, as OpenRouter reports them', () => {
    // https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching (usage fields)
    const completion = normalizeAnthropicMessage(
      {
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 21, cache_creation_input_tokens: 188086, cache_read_input_tokens: 0, output_tokens: 393 },
      },
      options,
    );
    expect(completion.usage).toMatchObject({ promptTokens: 21 + 188086, cachedTokens: 0, cacheWriteTokens: 188086, completionTokens: 393 });
    const cached = normalizeAnthropicMessage(
      {
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 21, cache_creation_input_tokens: 0, cache_read_input_tokens: 188086, output_tokens: 393 },
      },
      options,
    );
    expect(cached.usage).toMatchObject({ promptTokens: 21 + 188086, cachedTokens: 188086, cacheWriteTokens: 0 });
  });

  it('gives null content (not an empty string) when the answer is only a tool call', () => {
    const completion = normalizeAnthropicMessage(
      { content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }], stop_reason: 'tool_use' },
      options,
    );
    expect(completion.choices[0]!.message.content).toBeNull();
    expect(completion.choices[0]!.message.tool_calls![0]!.function.arguments).toBe('{}');
    expect(completion.usage.estimated).toBe(true);
  });
});

describe('citations and web search results', () => {
  it('reports web search results and web search citations as web_search_citation annotations (Anthropic web search docs)', () => {
    const completion = normalizeAnthropicMessage(
      {
        id: 'msg_1',
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'claude shannon birth date' } },
          {
            type: 'web_search_tool_result',
            tool_use_id: 'srvtoolu_1',
            content: [
              {
                type: 'web_search_result',
                url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
                title: 'Claude Shannon - Wikipedia',
                encrypted_content: 'EqgfCio',
                page_age: 'April 30, 2025',
              },
            ],
          },
          {
            type: 'text',
            text: 'Claude Shannon was born on April 30, 1916',
            citations: [
              {
                type: 'web_search_result_location',
                url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
                title: 'Claude Shannon - Wikipedia',
                encrypted_index: 'Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm',
                cited_text: 'Claude Elwood Shannon (April 30, 1916 – February 24, 2001)',
              },
              {
                type: 'char_location',
                document_index: 0,
                document_title: 'Doc',
                start_char_index: 0,
                end_char_index: 5,
                cited_text: 'Claude',
              },
            ],
          },
        ],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 5, server_tool_use: { web_search_requests: 1 } },
      },
      { excludeReasoning: false, promptText: '' },
    );
    const message = completion.choices[0]!.message;
    expect(message.content).toBe('Claude Shannon was born on April 30, 1916');
    expect(message.annotations).toEqual([
      {
        type: 'web_search_citation',
        web_search_citation: { url: 'https://en.wikipedia.org/wiki/Claude_Shannon', title: 'Claude Shannon - Wikipedia' },
      },
      {
        type: 'web_search_citation',
        web_search_citation: {
          url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
          title: 'Claude Shannon - Wikipedia',
          cited_text: 'Claude Elwood Shannon (April 30, 1916 – February 24, 2001)',
          encrypted_index: 'Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm',
        },
      },
    ]);
  });
});

describe('stop reasons', () => {
  it('maps every documented stop_reason onto OpenAI finish reasons', () => {
    // https://docs.anthropic.com/en/api/messages (stop_reason)
    expect(anthropicFinishReason('end_turn')).toBe('stop');
    expect(anthropicFinishReason('stop_sequence')).toBe('stop');
    expect(anthropicFinishReason('max_tokens')).toBe('length');
    expect(anthropicFinishReason('tool_use')).toBe('tool_calls');
    expect(anthropicFinishReason('pause_turn')).toBe('stop');
    expect(anthropicFinishReason('refusal')).toBe('content_filter');
    expect(anthropicFinishReason('model_context_window_exceeded')).toBe('length');
    expect(anthropicFinishReason(null)).toBeNull();
  });
});

describe('Anthropic HTTP errors', () => {
  // https://docs.anthropic.com/en/api/errors (error shapes and HTTP codes)
  const failure = (status: number, type: string, message: string) => {
    const detail = anthropicErrorDetail({ type: 'error', error: { type, message } });
    return httpFailure('anthropic', status, detail.message, detail.code);
  };

  it('maps overloaded_error (529) to a retryable provider_overloaded 503', () => {
    const overloaded = failure(529, 'overloaded_error', 'Overloaded');
    expect(overloaded.retryable).toBe(true);
    expect(overloaded.gatewayError).toMatchObject({ status: 503, errorType: 'provider_overloaded' });
  });

  it('maps rate_limit_error, authentication_error, request_too_large and api_error', () => {
    expect(failure(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit')).toMatchObject({
      retryable: true,
    });
    expect(failure(429, 'rate_limit_error', 'x').gatewayError).toMatchObject({ status: 429, errorType: 'rate_limit_exceeded' });
    expect(failure(401, 'authentication_error', 'invalid x-api-key').gatewayError).toMatchObject({
      status: 502,
      errorType: 'provider_unavailable',
    });
    expect(failure(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.').gatewayError).toMatchObject({
      status: 413,
      errorType: 'payload_too_large',
    });
    expect(failure(500, 'api_error', 'Internal server error')).toMatchObject({ retryable: true });
  });

  it('recognises "prompt is too long" as context_length_exceeded, with the provider\'s words', () => {
    const tooLong = failure(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum');
    expect(tooLong.retryable).toBe(false);
    expect(tooLong.gatewayError).toMatchObject({
      status: 400,
      errorType: 'context_length_exceeded',
      message: 'prompt is too long: 210000 tokens > 200000 maximum',
    });
    expect(failure(400, 'invalid_request_error', 'max_tokens: Field required').gatewayError).toMatchObject({
      status: 400,
      errorType: 'invalid_request',
    });
  });
});
