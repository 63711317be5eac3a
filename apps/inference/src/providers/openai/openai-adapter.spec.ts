import { describe, expect, it } from 'vitest';
import { testEndpoint } from '../../testing/test-endpoint.js';
import { buildOpenAiChatBody } from './openai-request.js';
import { normalizeFinishReason, normalizeOpenAiResponse } from './openai-response.js';

describe('OpenAI-format request', () => {
  it('re-targets the model and drops gateway-only fields', () => {
    const upstream = buildOpenAiChatBody(
      {
        model: 'sim/gpt-4o-mini',
        messages: [],
        session_id: 's',
        provider: { order: ['x'] },
        models: ['a'],
        temperature: 0.2,
        seed: 7,
        trace: { trace_id: 't' },
        metadata: { a: 'b' },
      },
      testEndpoint('gpt-4o-mini', ['temperature', 'seed']),
    );
    expect(upstream).toEqual({ model: 'gpt-4o-mini', messages: [], temperature: 0.2, seed: 7 });
  });

  it("sends only the parameters the endpoint supports, and other vendors' ones only where the catalog lists them", () => {
    const body = { model: 'm', messages: [], temperature: 0.2, top_k: 5, min_p: 0.1, repetition_penalty: 1.1, logprobs: true };
    expect(buildOpenAiChatBody(body, testEndpoint('u', ['temperature']))).toEqual({ model: 'u', messages: [], temperature: 0.2 });
    expect(buildOpenAiChatBody(body, testEndpoint('u', ['temperature', 'top_k', 'logprobs']))).toEqual({
      model: 'u',
      messages: [],
      temperature: 0.2,
      top_k: 5,
      logprobs: true,
    });
  });

  it('sends the reasoning object as reasoning_effort', () => {
    expect(buildOpenAiChatBody({ model: 'm', messages: [], reasoning: { effort: 'high' } }, testEndpoint('u', ['reasoning']))).toEqual({
      model: 'u',
      messages: [],
      reasoning_effort: 'high',
    });
    expect(buildOpenAiChatBody({ model: 'm', messages: [], reasoning: { effort: 'high' } }, testEndpoint('u', []))).toEqual({
      model: 'u',
      messages: [],
    });
  });

  it('sends max tokens as max_completion_tokens, unless the endpoint lists only max_tokens', () => {
    expect(
      buildOpenAiChatBody({ model: 'm', messages: [], max_tokens: 50 }, testEndpoint('u', ['max_tokens', 'max_completion_tokens'])),
    ).toEqual({ model: 'u', messages: [], max_completion_tokens: 50 });
    expect(
      buildOpenAiChatBody(
        { model: 'm', messages: [], max_tokens: 50, max_completion_tokens: 60 },
        testEndpoint('u', ['max_completion_tokens']),
      ),
    ).toEqual({ model: 'u', messages: [], max_completion_tokens: 60 });
    expect(buildOpenAiChatBody({ model: 'm', messages: [], max_completion_tokens: 50 }, testEndpoint('u', ['max_tokens']))).toEqual({
      model: 'u',
      messages: [],
      max_tokens: 50,
    });
  });

  it("maps the spec's service tiers to OpenAI's (fast and ultrafast are not OpenAI words)", () => {
    const endpoint = testEndpoint('u', ['service_tier']);
    expect(buildOpenAiChatBody({ model: 'm', messages: [], service_tier: 'fast' }, endpoint)).toEqual({
      model: 'u',
      messages: [],
      service_tier: 'priority',
    });
    expect(buildOpenAiChatBody({ model: 'm', messages: [], service_tier: 'ultrafast' }, endpoint)).toEqual({
      model: 'u',
      messages: [],
      service_tier: 'priority',
    });
    expect(buildOpenAiChatBody({ model: 'm', messages: [], service_tier: 'flex' }, { ...endpoint, serviceTiers: ['default'] })).toEqual({
      model: 'u',
      messages: [],
    });
  });

  it("sends the hashed session id as prompt_cache_key where the endpoint lists it, never over the client's", () => {
    const body = { model: 'm', messages: [] };
    expect(buildOpenAiChatBody(body, testEndpoint('u', ['prompt_cache_key']), undefined, 'hash-1')).toEqual({
      model: 'u',
      messages: [],
      prompt_cache_key: 'hash-1',
    });
    expect(buildOpenAiChatBody(body, testEndpoint('u', []), undefined, 'hash-1')).toEqual({ model: 'u', messages: [] });
    expect(
      buildOpenAiChatBody({ ...body, prompt_cache_key: 'mine' }, testEndpoint('u', ['prompt_cache_key']), undefined, 'hash-1'),
    ).toEqual({ model: 'u', messages: [], prompt_cache_key: 'mine' });
  });

  it('never forwards the raw end-user id', () => {
    expect(buildOpenAiChatBody({ model: 'm', messages: [], user: 'alice@example.com' }, testEndpoint('u'), 'hashed').user).toBe('hashed');
    expect(buildOpenAiChatBody({ model: 'm', messages: [], user: 'alice@example.com' }, testEndpoint('u'))).not.toHaveProperty('user');
  });
});

describe('OpenAI-format response', () => {
  // The non-streaming example of OpenAI's chat-completions reference, with a tool call.
  const documented = {
    id: 'chatcmpl-123',
    object: 'chat.completion',
    created: 1677652288,
    model: 'gpt-4o-mini',
    system_fingerprint: 'fp_44709d6fcb',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_abc123', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA"}' } },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: {
      prompt_tokens: 82,
      completion_tokens: 17,
      total_tokens: 99,
      prompt_tokens_details: { cached_tokens: 10 },
      completion_tokens_details: { reasoning_tokens: 4 },
    },
  };

  it('keeps the message, tool calls and counts, and both finish reasons', () => {
    const normalized = normalizeOpenAiResponse(documented, '');
    const choice = normalized.choices[0]!;
    expect(choice.message.content).toBeNull();
    expect(choice.message.refusal).toBeNull();
    expect(choice.message.tool_calls?.[0]?.function.arguments).toBe('{"location":"Boston, MA"}');
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.native_finish_reason).toBe('tool_calls');
    expect(normalized.usage).toEqual({ promptTokens: 82, completionTokens: 17, cachedTokens: 10, reasoningTokens: 4, estimated: false });
    expect(normalized.systemFingerprint).toBe('fp_44709d6fcb');
  });

  it('keeps every usage detail the provider reported, zeros included, and invents none', () => {
    const normalized = normalizeOpenAiResponse(
      {
        choices: [{ message: { content: 'x' }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: 50,
          completion_tokens: 20,
          prompt_tokens_details: { cached_tokens: 5, audio_tokens: 0, cache_write_tokens: 3, file_tokens: 4, video_tokens: 6 },
          completion_tokens_details: { reasoning_tokens: 2, audio_tokens: 7, image_tokens: 1 },
          server_tool_use: { web_search_requests: 1, tool_calls_requested: 1 },
        },
      },
      '',
    );
    expect(normalized.usage).toEqual({
      promptTokens: 50,
      completionTokens: 20,
      cachedTokens: 5,
      reasoningTokens: 2,
      cacheWriteTokens: 3,
      promptAudioTokens: 0,
      promptFileTokens: 4,
      promptVideoTokens: 6,
      completionAudioTokens: 7,
      completionImageTokens: 1,
      serverToolUse: { toolCallsExecuted: null, toolCallsRequested: 1, webSearchRequests: 1 },
      estimated: false,
    });
  });

  it('estimates and flags counts a provider did not send', () => {
    const normalized = normalizeOpenAiResponse({ choices: [{ message: { content: 'abcdefgh' }, finish_reason: 'eos' }] }, 'x'.repeat(40));
    expect(normalized.usage).toMatchObject({ promptTokens: 10, completionTokens: 2, estimated: true });
    expect(normalized.choices[0]!.finish_reason).toBe('stop');
    expect(normalized.choices[0]!.native_finish_reason).toBe('eos');
  });

  it('builds the prompt text for an estimate only when the provider sent no counts', () => {
    let built = 0;
    const promptText = () => {
      built++;
      return 'x'.repeat(40);
    };
    const reported = { prompt_tokens: 3, completion_tokens: 4 };
    expect(normalizeOpenAiResponse({ choices: [{ message: { content: 'a' } }], usage: reported }, promptText).usage.promptTokens).toBe(3);
    expect(built).toBe(0);
    expect(normalizeOpenAiResponse({ choices: [{ message: { content: 'a' } }] }, promptText).usage).toMatchObject({
      promptTokens: 10,
      estimated: true,
    });
    expect(built).toBe(1);
  });

  it("maps the finish reasons of compatible hosts onto OpenAI's set", () => {
    expect(normalizeFinishReason('length')).toBe('length');
    expect(normalizeFinishReason('max_tokens')).toBe('length');
    expect(normalizeFinishReason('function_call')).toBe('tool_calls');
    expect(normalizeFinishReason(null)).toBeNull();
  });
});
