import { describe, expect, it } from 'vitest';
import { call } from './e2e-helpers.js';

/** speed, inference_geo, top-level cache_control and diagnostics on /v1/messages: sent, left out with a warning, or refused. */
const ask = (extra: Record<string, unknown>, content = 'Tell me about gateways') => ({
  max_tokens: 32,
  messages: [{ role: 'user', content }],
  ...extra,
});
type Usage = Record<string, unknown> & { cache_read_input_tokens: number; cache_creation_input_tokens: number };

describe('Messages API fields beyond the chat form', () => {
  it('an Anthropic-format model gets speed, inference_geo and top-level cache_control, and reports them', async () => {
    const long = `Automatic cache ${Date.now()}. ${'Long context. '.repeat(600)}`;
    const body = ask({ model: 'sim/claude-sonnet', speed: 'fast', inference_geo: 'us', cache_control: { type: 'ephemeral' } }, long);
    const first = await call('/messages', { body });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const usage = (first.body as { usage: Usage }).usage;
    // The simulator reports the speed and region it was asked for, as Anthropic does.
    expect(usage).toMatchObject({ speed: 'fast', inference_geo: 'us', cache_read_input_tokens: 0 });
    expect(usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(1024);
    expect(first.headers.get('x-gateway-warning')).toBeNull();
    const second = await call('/messages', { body });
    expect((second.body as { usage: Usage }).usage.cache_read_input_tokens).toBe(usage.cache_creation_input_tokens);
  });

  it('diagnostics is not sent to an Anthropic-format model (its ids are the gateway’s) and the answer says so', async () => {
    const response = await call('/messages', { body: ask({ model: 'sim/claude-sonnet', diagnostics: { previous_message_id: null } }) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.headers.get('x-gateway-warning')).toMatch(/^diagnostics was left out/);
  });

  it('an OpenAI-format model answers without speed, cache_control and diagnostics, named in x-gateway-warning, streamed and not', async () => {
    const extra = { speed: 'fast', cache_control: { type: 'ephemeral' }, diagnostics: { previous_message_id: null } };
    for (const stream of [false, true]) {
      const response = await call('/messages', { body: ask({ model: 'sim/gpt-4o-mini', stream, ...extra }) });
      expect(response.status).toBe(200);
      const warning = response.headers.get('x-gateway-warning') ?? '';
      for (const field of Object.keys(extra))
        expect(warning).toMatch(new RegExp(`${field} was left out: not supported by sim/gpt-4o-mini`));
    }
  });

  it('an OpenAI-format model refuses inference_geo: the data would be processed outside the region asked for', async () => {
    const response = await call('/messages', { body: ask({ model: 'sim/gpt-4o-mini', inference_geo: 'us' }) });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/^inference_geo is not supported by sim\/gpt-4o-mini/) },
    });
  });

  it.each(['sim/claude-sonnet', 'sim/gpt-4o-mini'])(
    '%s: a field outside the Messages API and the gateway is named, not dropped silently',
    async (model) => {
      const response = await call('/messages', { body: ask({ model, seed: 7, provider: { sort: 'price' } }) });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.headers.get('x-gateway-warning')).toBe('seed was left out: not a Messages API field');
    },
  );
});
