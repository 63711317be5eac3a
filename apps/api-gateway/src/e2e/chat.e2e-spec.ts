import { OpenRouter } from '@openrouter/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, postLarge, stack } from './e2e-helpers.js';

const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const messages = [{ role: 'user' as const, content: 'Tell me about gateways' }];

describe('POST /v1/chat/completions through the gateway', () => {
  it('returns the spec §2.1 chat completion via the openai client', async () => {
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages });
    const raw = completion as unknown as Record<string, unknown>;
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('sim/gpt-4o-mini');
    expect(completion.id).toMatch(/^gen-/);
    expect(Number.isInteger(completion.created)).toBe(true);
    expect(raw.provider).toBe('Simulator');
    expect(completion.system_fingerprint).toBe('fp_sim');
    const choice = completion.choices[0]!;
    expect(choice.index).toBe(0);
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content).toMatch(/^Simulated reply to: Tell me about gateways/);
    expect(choice.message.refusal).toBeNull();
    expect(choice.finish_reason).toBe('stop');
    expect((choice as unknown as Record<string, unknown>).native_finish_reason).toBe('stop');
    expect(choice.logprobs).toBeNull();
  });

  it('reports integer token counts and a cost that follows the catalog prices', async () => {
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages });
    const usage = completion.usage as unknown as Record<string, any>;
    expect(Number.isInteger(usage.prompt_tokens)).toBe(true);
    expect(Number.isInteger(usage.completion_tokens)).toBe(true);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    // sim/gpt-4o-mini: 0.00000015 per prompt token, 0.0000006 per completion token.
    const expected = usage.prompt_tokens * 0.00000015 + usage.completion_tokens * 0.0000006;
    expect(usage.cost).toBeCloseTo(expected, 12);
    expect(usage.is_byok).toBe(false);
    expect(usage.cost_details.upstream_inference_prompt_cost).toBeCloseTo(usage.prompt_tokens * 0.00000015, 12);
    expect(usage.cost_details.upstream_inference_completions_cost).toBeCloseTo(usage.completion_tokens * 0.0000006, 12);
  });

  it('gives more prompt tokens to a longer prompt', async () => {
    const short = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const long = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi '.repeat(50) }],
    });
    expect(long.usage!.prompt_tokens).toBeGreaterThan(short.usage!.prompt_tokens + 40);
  });

  it('passes provider fields through: max_tokens, logprobs and tools', async () => {
    const truncated = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages, max_tokens: 3 });
    expect(truncated.choices[0]!.finish_reason).toBe('length');
    expect(truncated.usage!.completion_tokens).toBe(3);

    const withLogprobs = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages, logprobs: true, top_logprobs: 2 });
    const entry = withLogprobs.choices[0]!.logprobs!.content![0]!;
    expect(typeof entry.token).toBe('string');
    expect(typeof entry.logprob).toBe('number');
    expect(entry.top_logprobs).toHaveLength(2);

    const withTools = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      ],
    });
    const call0 = withTools.choices[0]!.message.tool_calls![0]!;
    expect(withTools.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call0.type).toBe('function');
    expect(call0.type === 'function' && call0.function.name).toBe('get_weather');
    expect(call0.type === 'function' && typeof call0.function.arguments).toBe('string');
  });

  it('falls back to the next endpoint when the first answers 503', async () => {
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini-fallback', messages });
    expect(completion.choices[0]!.message.content).toMatch(/^Simulated reply/);
    // The second endpoint's prices apply: 0.0000002 prompt, 0.0000008 completion.
    const usage = completion.usage as unknown as { prompt_tokens: number; completion_tokens: number; cost: number };
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.0000002 + usage.completion_tokens * 0.0000008, 12);
  });

  it('answers 404 not_found for a model the catalog does not offer', async () => {
    const result = await call('/chat/completions', { body: { model: 'nope/model', messages } });
    expect(result.status).toBe(404);
    expect(envelopeOf(result).metadata?.error_type).toBe('not_found');
  });

  it.each([
    ['temperature above 2', { temperature: 2.5 }],
    ['temperature below 0', { temperature: -0.1 }],
    ['frequency_penalty below -2', { frequency_penalty: -2.1 }],
    ['presence_penalty above 2', { presence_penalty: 2.1 }],
    ['top_logprobs above 20', { top_logprobs: 21 }],
    ['five stop sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }],
    ['17 metadata pairs', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }],
    ['a metadata key with brackets', { metadata: { 'a[0]': 'v' } }],
    ['a metadata value over 512 characters', { metadata: { k: 'v'.repeat(513) } }],
    ['a session_id over 256 characters', { session_id: 's'.repeat(257) }],
    ['no messages', { messages: [] }],
    ['a message without a valid role', { messages: [{ role: 'robot', content: 'x' }] }],
    ['a model that is not a string', { model: 42 }],
  ])('answers 400 for %s', async (_name, override) => {
    const result = await call('/chat/completions', { body: { model: 'sim/gpt-4o-mini', messages, ...override } });
    expect(result.status).toBe(400);
    expect(envelopeOf(result).metadata?.error_type).toBe('invalid_request');
  });

  it('accepts the bounds themselves', async () => {
    const result = await call('/chat/completions', {
      body: { model: 'sim/gpt-4o-mini', messages, temperature: 2, frequency_penalty: -2, presence_penalty: 2, stop: ['a', 'b', 'c', 'd'] },
    });
    expect(result.status).toBe(200);
  });

  it('refuses an x-session-id header over 256 characters', async () => {
    const result = await call('/chat/completions', {
      body: { model: 'sim/gpt-4o-mini', messages },
      headers: { 'x-session-id': 's'.repeat(257) },
    });
    expect(result.status).toBe(400);
  });

  it('renders body errors with the envelope: bad JSON, wrong content type, too large', async () => {
    const badJson = await call('/chat/completions', { rawBody: '{"model":', headers: { 'content-type': 'application/json' } });
    expect(badJson.status).toBe(400);
    envelopeOf(badJson);
    const wrongType = await call('/chat/completions', { rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
    envelopeOf(wrongType);
    const tooLarge = await postLarge(
      '/chat/completions',
      Buffer.from(JSON.stringify({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(11 * 1024 * 1024) }] })),
    );
    expect(tooLarge.status).toBe(413);
    expect(envelopeOf(tooLarge).metadata?.error_type).toBe('payload_too_large');
  });
});

describe('a client that leaves before the answer', () => {
  it('makes the gateway abort the provider call (no tokens paid for that nobody reads)', async () => {
    const upstreamModel = 'gpt-4o-mini;latency=3000';
    const statsOf = async () =>
      (await fetch(`${stack.simulatorUrl}/sim/streams?key=${encodeURIComponent(upstreamModel)}`)).json() as Promise<{
        started: number;
        finished: number;
        abandoned: number;
      }>;
    const before = await statsOf();
    const controller = new AbortController();
    const request = fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/gpt-4o-mini-delayed', messages }),
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    await expect(request).rejects.toThrow();
    // The simulator answers after 3 s; by then the provider call must have been abandoned, not finished.
    await expect.poll(async () => (await statsOf()).abandoned - before.abandoned, { timeout: 30_000, interval: 100 }).toBe(1);
    const after = await statsOf();
    expect(after.finished - before.finished).toBe(0);
  });
});

describe('GET /v1/models', () => {
  it('lists what can be called, with pricing, context length and parameters', async () => {
    const models = await openai.models.list();
    const ids = models.data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['sim/gpt-4o-mini', 'sim/gpt-4o-mini-fallback']));
    // Endpoints without a provider key (OpenAI when OPENAI_API_KEY is unset) are not offered.
    expect(ids).not.toContain('openai/gpt-4o-mini');
    const model = models.data.find((entry) => entry.id === 'sim/gpt-4o-mini') as unknown as Record<string, any>;
    expect(model.pricing).toEqual({ prompt: '0.00000015', completion: '0.0000006', input_cache_read: '0.000000075' });
    expect(model.context_length).toBe(128000);
    expect(model.supported_parameters).toContain('temperature');
  });

  it('lists only models that answer: each listed chat model completes (streamed, not, and with tools when it lists them), each embeddings model embeds', async () => {
    const models = (await openai.models.list()).data as unknown as Array<{
      id: string;
      architecture: { output_modalities: string[] };
      supported_parameters: string[];
    }>;
    // The simulator's fault fixtures are callable by name but not offered.
    expect(models.map((model) => model.id)).not.toEqual(expect.arrayContaining(['sim/unavailable']));
    expect(models.map((model) => model.id)).not.toContain('sim/gpt-4o-mini-cut');
    for (const model of models) {
      if (model.architecture.output_modalities.includes('embeddings')) {
        const embedded = await openai.embeddings.create({ model: model.id, input: 'hello' });
        expect(embedded.data[0]!.embedding.length, model.id).toBeGreaterThan(0);
        continue;
      }
      const completion = await openai.chat.completions.create({ model: model.id, messages });
      expect(completion.choices[0]!.message.content, model.id).toBeTruthy();
      let streamed = '';
      for await (const chunk of await openai.chat.completions.create({ model: model.id, messages, stream: true })) {
        streamed += chunk.choices[0]?.delta.content ?? '';
      }
      expect(streamed.length, model.id).toBeGreaterThan(0);
      if (model.supported_parameters.includes('tools')) {
        const withTool = await openai.chat.completions.create({
          model: model.id,
          messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
          tools: [
            {
              type: 'function',
              function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
            },
          ],
          tool_choice: 'required',
        });
        const call = withTool.choices[0]!.message.tool_calls?.[0] as { function: { name: string; arguments: string } } | undefined;
        expect(call?.function.name, model.id).toBe('get_weather');
        expect(typeof call?.function.arguments, model.id).toBe('string');
      }
    }
  });

  it('satisfies the OpenRouter SDK model schema', async () => {
    const sdk = new OpenRouter({ apiKey: stack.apiKey, serverURL: stack.baseUrl });
    const page = await sdk.models.list();
    expect(page.result.totalCount).toBe(page.result.data.length);
    const model = page.result.data.find((entry) => entry.id === 'sim/gpt-4o-mini')!;
    expect(model.architecture.inputModalities).toEqual(['text']);
    expect(model.topProvider.contextLength).toBe(128000);
    expect(model.pricing.prompt).toBe('0.00000015');
  });
});
