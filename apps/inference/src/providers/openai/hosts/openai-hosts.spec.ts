import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../catalog/catalog.schema.js';
import { parseRetryAfter } from '../../../upstream/upstream-failure.js';
import { hostAuthHeaders } from './host-auth.js';
import { adaptRequestToHost } from './host-request.js';
import { compatErrorDetail, hostUsage } from './host-response.js';
import { HOST_PROFILES } from './openai-hosts.js';

const provider = (extra: Partial<ProviderConfig>): ProviderConfig => ({
  id: 'p',
  name: 'p',
  format: 'openai',
  baseUrl: 'http://h/v1',
  apiKey: 'k',
  ...extra,
});

describe('host request transforms', () => {
  it('maps every tool call id to the same 9 characters in calls and results (Mistral)', () => {
    const body = adaptRequestToHost(
      {
        messages: [
          {
            role: 'assistant',
            tool_calls: [
              { id: 'call_a', type: 'function' },
              { id: 'abcDEF123', type: 'function' },
            ],
          },
          { role: 'tool', tool_call_id: 'call_a', content: 'x' },
          { role: 'tool', tool_call_id: 'abcDEF123', content: 'y' },
        ],
      },
      HOST_PROFILES.mistral,
      'mistral-large-latest',
      {},
    );
    const [assistant, first, second] = body.messages as Array<Record<string, unknown>>;
    const ids = (assistant!.tool_calls as Array<{ id: string }>).map((call) => call.id);
    expect(ids[0]).toMatch(/^[a-z0-9]{9}$/);
    expect(ids[1]).toBe('abcDEF123');
    expect([first!.tool_call_id, second!.tool_call_id]).toEqual(ids);
  });

  it('merges consecutive turns of one role after the system messages (Perplexity)', () => {
    const body = adaptRequestToHost(
      {
        messages: [
          { role: 'system', content: 's' },
          { role: 'system', content: 't' },
          { role: 'user', content: 'a' },
          { role: 'user', content: [{ type: 'text', text: 'b' }] },
        ],
      },
      HOST_PROFILES.perplexity,
      'sonar',
      {},
    );
    expect(body.messages).toEqual([
      { role: 'system', content: 's' },
      { role: 'system', content: 't' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
  });

  it('drops per-model refusals only on the models named (xAI reasoning models)', () => {
    const body = { stop: ['x'], presence_penalty: 1, messages: [] };
    expect(adaptRequestToHost(body, HOST_PROFILES.xai, 'grok-4-0709', {})).not.toHaveProperty('stop');
    expect(adaptRequestToHost(body, HOST_PROFILES.xai, 'grok-4-fast-non-reasoning', {})).toHaveProperty('stop');
  });

  it('puts the cap under the host name and leaves stream_options out where usage always streams', () => {
    const out = adaptRequestToHost(
      { max_completion_tokens: 9, stream_options: { include_usage: true }, messages: [] },
      HOST_PROFILES.mistral,
      'm',
      {},
    );
    expect(out).toEqual({ max_tokens: 9, messages: [] });
  });
});

describe('host usage and errors', () => {
  it('reads DeepSeek cache hits, Perplexity searches and reasoning outside completion_tokens', () => {
    expect(
      hostUsage(HOST_PROFILES.deepseek, { prompt_tokens: 10, completion_tokens: 5, prompt_cache_hit_tokens: 6 } as never)?.cachedTokens,
    ).toBe(6);
    const perplexity = hostUsage(HOST_PROFILES.perplexity, { prompt_tokens: 3, completion_tokens: 4, num_search_queries: 2 } as never);
    expect(perplexity?.serverToolUse?.webSearchRequests).toBe(2);
    const outside = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 10, completion_tokens_details: { reasoning_tokens: 3 } };
    expect(hostUsage(HOST_PROFILES.xai, outside)?.completionTokens).toBe(7);
    const inside = { ...outside, total_tokens: 7 };
    expect(hostUsage(HOST_PROFILES.openai, inside)?.completionTokens).toBe(4);
  });

  it('reads every error body shape the hosts send', () => {
    expect(compatErrorDetail({ error: 'bare string' })).toEqual({ message: 'bare string' });
    expect(compatErrorDetail({ error: { code: 402, message: 'credits' } })).toEqual({ message: 'credits', code: undefined });
    expect(compatErrorDetail({ object: 'error', message: 'top', type: 'BadRequestError', code: 400 }).message).toBe('top');
    expect(
      compatErrorDetail({ object: 'error', message: { detail: [{ loc: ['body', 'x'], msg: 'Extra inputs are not permitted' }] } }).message,
    ).toBe('body.x: Extra inputs are not permitted');
    expect(compatErrorDetail({ error: { code: 400, message: 'm', type: 'exceed_context_size_error' } }).code).toBe(
      'context_length_exceeded',
    );
  });

  it('takes the longest reset of the exhausted limits when no retry-after is sent', () => {
    expect(
      parseRetryAfter({
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '6m0s',
        'x-ratelimit-reset-requests': '1s',
        'x-ratelimit-remaining-requests': '5',
      }),
    ).toBe(360_000);
    expect(parseRetryAfter({ 'x-ratelimit-remaining-tokens-minute': '0', 'x-ratelimit-reset-tokens-minute': '7.5' })).toBe(7500);
    expect(parseRetryAfter({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '120ms' })).toBe(120);
    expect(parseRetryAfter({ 'x-ratelimit-remaining-requests': '3', 'x-ratelimit-reset-requests': '2s' })).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '2', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '9s' })).toBe(2000);
  });
});

describe('host auth headers', () => {
  it('sends Bearer by default, nothing to keyless self-hosted servers, a custom header and static headers when the catalog says', () => {
    expect(hostAuthHeaders(provider({ host: 'groq' }), 'k')).toEqual({ authorization: 'Bearer k' });
    expect(hostAuthHeaders(provider({ host: 'ollama' }), 'k')).toEqual({});
    expect(hostAuthHeaders(provider({ host: 'vllm' }), '')).toEqual({});
    expect(hostAuthHeaders(provider({ host: 'vllm' }), 'k')).toEqual({ authorization: 'Bearer k' });
    expect(
      hostAuthHeaders(provider({ host: 'openrouter', auth: { kind: 'header', header: 'X-Api-Key' }, headers: { 'X-Title': 'gw' } }), 'k'),
    ).toEqual({ 'x-api-key': 'k', 'X-Title': 'gw' });
  });
});
