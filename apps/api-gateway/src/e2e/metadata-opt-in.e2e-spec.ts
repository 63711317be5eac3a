import { HTTPClient, OpenRouter } from '@openrouter/sdk';
import { describe, expect, it } from 'vitest';
import { call, stack } from './e2e-helpers.js';

/**
 * The routing-metadata opt-in (spec §4.5) under each spelling: `X-Service-Metadata`, the
 * legacy header, and `X-OpenRouter-Metadata` as `@openrouter/sdk` sends it, answered under the
 * name that header asks for (`openrouter_metadata`, what the SDK parses).
 */
describe('the routing-metadata opt-in', () => {
  it('@openrouter/sdk xOpenRouterMetadata: "enabled" reads it as openrouterMetadata on chat completions and responses', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const httpClient = new HTTPClient();
    httpClient.addHook('response', async (response) => void bodies.push((await response.clone().json()) as Record<string, unknown>));
    const sdk = new OpenRouter({ apiKey: stack.apiKey, serverURL: stack.baseUrl, httpClient });
    const chat = await sdk.chat.send({
      xOpenRouterMetadata: 'enabled',
      chatRequest: { model: 'sim/gpt-4o-mini-fallback', messages: [{ role: 'user', content: 'Hi' }] },
    });
    const response = await sdk.responses.send({
      xOpenRouterMetadata: 'enabled',
      responsesRequest: { model: 'sim/gpt-4o-mini-fallback', input: 'Hi' },
    });
    // Both are whole results (no stream asked for); the union type also holds the stream's.
    for (const result of [chat, response] as Array<{ openrouterMetadata?: unknown }>)
      expect(result.openrouterMetadata).toMatchObject({ attempt: 2, requested: 'sim/gpt-4o-mini-fallback', isByok: false });
    expect(bodies).toHaveLength(2);
    for (const body of bodies) expect(body).not.toHaveProperty('service_metadata');
  });

  it("the spec's header keeps service_metadata, and wins when both are sent", async () => {
    const chat = await call('/chat/completions', {
      body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
      headers: { 'x-openrouter-metadata': 'enabled', 'x-service-metadata': 'enabled' },
    });
    expect(chat.body).toHaveProperty('service_metadata');
    expect(chat.body).not.toHaveProperty('openrouter_metadata');
  });

  it('takes the header on /v1/messages too; a value it does not know (an open enum) leaves the answer as it is', async () => {
    const messages = await call('/messages', {
      body: { model: 'sim/claude-sonnet', max_tokens: 32, messages: [{ role: 'user', content: 'Hi' }] },
      headers: { 'x-openrouter-metadata': 'enabled', 'anthropic-version': '2023-06-01' },
    });
    expect(messages.status).toBe(200);
    expect(messages.body).toHaveProperty('openrouter_metadata');
    for (const value of ['verbose', 'disabled']) {
      const chat = await call('/chat/completions', {
        body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
        headers: { 'x-openrouter-metadata': value, 'x-service-metadata': value },
      });
      expect(chat.status).toBe(200);
      expect(chat.body).not.toHaveProperty('service_metadata');
    }
  });
});
