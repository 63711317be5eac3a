import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { testEndpoint, testModel } from '../testing/test-endpoint.js';
import type { RouteAttempt } from '../routing/route-types.js';
import { chatBodyFromMessages } from './chat-body-from-messages.js';
import { draftFromNative } from './message-from-completion.js';
import { nativeWarnings, translationWarnings } from './messages-attempt.js';
import { nativeAnthropicBody } from './native-body.js';

/** speed, inference_geo, top-level cache_control, diagnostics: each sent, left out with a warning, or refused. */
const base = { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
const fields = { speed: 'fast', inference_geo: 'us', cache_control: { type: 'ephemeral', ttl: '1h' } };

function attemptOn(format: 'openai' | 'anthropic'): RouteAttempt {
  const endpoint = testEndpoint('u', [], format);
  return { modelId: 'sim/m', model: testModel(endpoint), endpoint, endpointKey: 'test/u', credential: { kind: 'gateway' } };
}

describe('Messages fields with no chat counterpart', () => {
  it('go to an Anthropic-format endpoint as sent; diagnostics does not, and is named', () => {
    const request = { ...base, ...fields, diagnostics: { previous_message_id: 'gen-1' } };
    const chat = chatBodyFromMessages(request);
    const body = nativeAnthropicBody({ request, chat, prepared: chat, upstreamModel: 'claude-x' });
    expect(body).toEqual({ ...base, model: 'claude-x', ...fields });
    expect(nativeWarnings({ request, chat })).toEqual([
      "diagnostics was left out: message ids are the gateway's, which the provider cannot look up",
    ]);
    expect(nativeWarnings({ request: base, chat: chatBodyFromMessages(base) })).toEqual([]);
  });

  it('stay out of the chat form; speed, cache_control and diagnostics are named, inference_geo is refused', () => {
    const request = { ...base, speed: 'fast', cache_control: fields.cache_control, diagnostics: { previous_message_id: null } };
    const chat = chatBodyFromMessages(request);
    for (const field of ['speed', 'cache_control', 'diagnostics', 'inference_geo']) expect(chat).not.toHaveProperty(field);
    const where = 'not supported by sim/m on Test (an OpenAI-format provider)';
    expect(translationWarnings({ request, chat }, attemptOn('openai'))).toEqual([
      `cache_control was left out: ${where}`,
      `speed was left out: ${where}`,
      `diagnostics was left out: ${where}`,
    ]);
    const geo = { ...base, inference_geo: 'us' };
    expect(chatBodyFromMessages(geo)).not.toHaveProperty('inference_geo');
    expect(() => translationWarnings({ request: geo, chat: chatBodyFromMessages(geo) }, attemptOn('openai'))).toThrow(GatewayError);
    expect(() => translationWarnings({ request: geo, chat: chatBodyFromMessages(geo) }, attemptOn('openai'))).toThrow(/inference_geo/);
  });

  it('names a field that is neither the Messages API nor the gateway, on every endpoint, and keeps gateway fields', () => {
    const request = { ...base, seed: 7, provider: { sort: 'price' }, preset: 'p', service_tier: 'auto' };
    const chat = chatBodyFromMessages(request);
    expect(chat).not.toHaveProperty('seed');
    expect(chat).toMatchObject({ provider: { sort: 'price' }, preset: 'p', service_tier: 'auto' });
    const warning = 'seed was left out: not a Messages API field';
    expect(nativeWarnings({ request, chat })).toEqual([warning]);
    expect(translationWarnings({ request, chat }, attemptOn('openai'))).toEqual([warning]);
  });

  it("relays the provider's usage.speed and usage.inference_geo", () => {
    const draft = draftFromNative({ content: [], usage: { input_tokens: 1, output_tokens: 1, speed: 'fast', inference_geo: 'us' } });
    expect(draft.usageExtras).toEqual({ speed: 'fast', inference_geo: 'us' });
  });
});
