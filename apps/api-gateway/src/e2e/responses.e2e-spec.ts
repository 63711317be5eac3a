import { createOpenAI } from '@ai-sdk/openai';
import { OpenRouter } from '@openrouter/sdk';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const aiProvider = createOpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl });

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

interface ListedModel {
  id: string;
  architecture: { output_modalities: string[] };
  supported_parameters: string[];
}

/** Every chat model the stack lists: OpenAI-format (native Responses and chat translation) and Anthropic-format. */
let chatModels: ListedModel[] = [];
beforeAll(async () => {
  const listed = (await openai.models.list()).data as unknown as ListedModel[];
  chatModels = listed.filter((model) => !model.architecture.output_modalities.includes('embeddings'));
});

/** Every event of a raw streamed POST, parsed from the SSE bytes. */
async function streamEvents(
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; events: Array<Record<string, any>>; names: string[]; text: string }> {
  const response = await fetch(`${stack.baseUrl}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ stream: true, ...body }),
  });
  const text = await response.text();
  const events: Array<Record<string, any>> = [];
  const names: string[] = [];
  for (const block of text.split('\n\n')) {
    if (!block.trim()) continue;
    const lines = block.split('\n');
    names.push(lines.find((line) => line.startsWith('event: '))?.slice(7) ?? '');
    const data = lines.find((line) => line.startsWith('data: '));
    if (data) events.push(JSON.parse(data.slice(6)) as Record<string, any>);
  }
  return { status: response.status, events, names, text };
}

describe('POST /v1/responses with the openai client, on every listed chat model', () => {
  it('creates a response: message item, output_text, usage with cost, echoed configuration', async () => {
    expect(chatModels.map((model) => model.id)).toEqual(expect.arrayContaining(['sim/gpt-4o-mini', 'sim/gpt-5-mini', 'sim/claude-sonnet']));
    for (const model of chatModels) {
      const response = await openai.responses.create({
        model: model.id,
        input: 'Tell me about gateways',
        instructions: 'Be brief.',
        metadata: { run: 'e2e' },
        temperature: 0.5,
      });
      expect(response, model.id).toMatchObject({
        object: 'response',
        status: 'completed',
        model: model.id,
        error: null,
        incomplete_details: null,
      });
      expect(response.id, model.id).toMatch(/^resp_/);
      expect(response.output_text, model.id).toMatch(/^Simulated reply to: Tell me about gateways/);
      expect(response.output.at(-1), model.id).toMatchObject({
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', annotations: [] }],
      });
      expect(response, model.id).toMatchObject({
        instructions: 'Be brief.',
        metadata: { run: 'e2e' },
        temperature: 0.5,
        tool_choice: 'auto',
        truncation: 'disabled',
        store: false,
      });
      const usage = response.usage as unknown as Record<string, any>;
      expect(usage.input_tokens, model.id).toBeGreaterThan(0);
      expect(usage.output_tokens, model.id).toBeGreaterThan(0);
      expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
      expect(usage.input_tokens_details).toEqual({ cached_tokens: expect.any(Number) });
      expect(usage.output_tokens_details).toEqual({ reasoning_tokens: expect.any(Number) });
      expect(usage.cost, model.id).toBeGreaterThan(0);
      expect(usage.cost_details).toEqual({
        upstream_inference_cost: null,
        upstream_inference_input_cost: expect.any(Number),
        upstream_inference_output_cost: expect.any(Number),
      });
      expect(usage.cost).toBeCloseTo(
        usage.cost_details.upstream_inference_input_cost + usage.cost_details.upstream_inference_output_cost,
        12,
      );
    }
  });

  it('streams semantic events with increasing sequence numbers that responses.stream accumulates into the final response', async () => {
    for (const model of chatModels) {
      const stream = openai.responses.stream({ model: model.id, input: 'Tell me about gateways' });
      const events: ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const final = await stream.finalResponse();
      const types = events.map((event) => event.type);
      expect(types.slice(0, 5), model.id).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
      ]);
      expect(types.slice(-4), model.id).toEqual([
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
      const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
      expect(final.output_text, model.id).toBe(deltas);
      expect(final.status).toBe('completed');
      expect((final.usage as unknown as { cost: number }).cost, model.id).toBeGreaterThan(0);
    }
  });

  it('round-trips a function tool: function_call, then function_call_output', async () => {
    for (const model of chatModels.filter((entry) => entry.supported_parameters.includes('tools'))) {
      const first = await openai.responses.create({
        model: model.id,
        input: 'Weather in Paris?',
        tools: [weather],
        tool_choice: 'required',
      });
      const fnCall = first.output.find((item) => item.type === 'function_call');
      if (fnCall?.type !== 'function_call') throw new Error(`${model.id}: no function_call in ${JSON.stringify(first.output)}`);
      expect(fnCall, model.id).toMatchObject({ name: 'get_weather', status: 'completed', call_id: expect.any(String) });
      expect(JSON.parse(fnCall.arguments), model.id).toEqual({ city: expect.any(String) });
      const second = await openai.responses.create({
        model: model.id,
        tools: [weather],
        // The output items go back as input, as the Responses API documents (function calls and messages are both).
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          ...(first.output as ResponseInputItem[]),
          { type: 'function_call_output', call_id: fnCall.call_id, output: 'sunny, 21 C' },
        ],
      });
      expect(second.output_text, model.id).toBe('Based on the tool result: "sunny, 21 C".');

      // Streamed: the call's arguments arrive as deltas, and the final item carries them whole.
      const stream = openai.responses.stream({ model: model.id, input: 'Weather in Paris?', tools: [weather], tool_choice: 'required' });
      let args = '';
      for await (const event of stream) if (event.type === 'response.function_call_arguments.delta') args += event.delta;
      const final = await stream.finalResponse();
      const streamedCall = final.output.find((item) => item.type === 'function_call');
      expect(streamedCall, model.id).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: args });
    }
  });

  it('answers JSON that matches a json_schema text format', async () => {
    for (const model of chatModels.filter((entry) => entry.supported_parameters.includes('response_format'))) {
      const response = await openai.responses.create({
        model: model.id,
        input: 'Name a city',
        text: {
          format: {
            type: 'json_schema',
            name: 'city',
            strict: true,
            schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
          },
        },
      });
      expect(JSON.parse(response.output_text), model.id).toEqual({ name: expect.any(String) });
      expect(response.text).toMatchObject({ format: { type: 'json_schema', name: 'city' } });
    }
  });

  it('reports incomplete with the reason when max_output_tokens stops it', async () => {
    for (const model of ['sim/gpt-4o-mini', 'sim/gpt-5-mini', 'sim/claude-sonnet']) {
      const response = await openai.responses.create({ model, input: 'Tell me a long story about gateways', max_output_tokens: 16 });
      expect(response.status, model).toBe('incomplete');
      expect(response.incomplete_details, model).toEqual({ reason: 'max_output_tokens' });
      expect(response.output.at(-1), model).toMatchObject({ type: 'message', status: 'incomplete' });
    }
  });
});

describe('reasoning on each way out', () => {
  it('returns a reasoning item with its summary, and encrypted content only when include asks; sending it back works', async () => {
    for (const model of ['sim/gpt-5-mini', 'sim/claude-sonnet']) {
      const plain = await openai.responses.create({
        model,
        input: 'Why is the sky blue?',
        reasoning: { effort: 'low', summary: 'auto' },
        max_output_tokens: 4096,
      });
      const plainReasoning = plain.output.find((item) => item.type === 'reasoning');
      expect(plainReasoning, model).toMatchObject({
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: expect.stringContaining('Why is the sky blue?') }],
      });
      expect(plainReasoning, model).not.toHaveProperty('encrypted_content');

      const first = await openai.responses.create({
        model,
        input: 'Why is the sky blue?',
        reasoning: { effort: 'low', summary: 'auto' },
        include: ['reasoning.encrypted_content'],
        max_output_tokens: 4096,
      });
      const reasoning = first.output.find((item) => item.type === 'reasoning');
      expect(reasoning?.type === 'reasoning' && reasoning.encrypted_content, model).toMatch(/^gwr1\./);
      const second = await openai.responses.create({
        model,
        input: [
          { role: 'user', content: 'Why is the sky blue?' },
          ...(first.output as ResponseInputItem[]),
          { role: 'user', content: 'And at sunset?' },
        ],
        reasoning: { effort: 'low', summary: 'auto' },
        include: ['reasoning.encrypted_content'],
        max_output_tokens: 4096,
      });
      expect(second.status, model).toBe('completed');
      expect(second.output_text, model).toMatch(/^Simulated reply to: And at sunset/);
    }
  });

  it('streams reasoning summary deltas before the text', async () => {
    for (const model of ['sim/gpt-5-mini', 'sim/claude-sonnet']) {
      const { events } = await streamEvents({
        model,
        input: 'Why is the sky blue?',
        reasoning: { effort: 'low', summary: 'auto' },
        max_output_tokens: 4096,
      });
      const types = events.map((event) => event.type);
      const firstSummary = types.indexOf('response.reasoning_summary_text.delta');
      expect(firstSummary, model).toBeGreaterThan(0);
      expect(firstSummary, model).toBeLessThan(types.indexOf('response.output_text.delta'));
      expect(types, model).toContain('response.reasoning_summary_part.done');
      expect(events.at(-1)!.response.output[0], model).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text' }] });
    }
  });
});

describe('the three ways out', () => {
  it('calls a catalog endpoint that speaks the Responses API natively, and translates for the others', async () => {
    const native = await streamEvents({ model: 'sim/gpt-5-mini', input: 'Hi', debug: { echo_upstream_body: true } });
    expect(native.events[0]!.debug.echo_upstream_body).toMatchObject({
      model: 'gpt-5-mini',
      input: [{ type: 'message', role: 'user', content: 'Hi' }],
      store: false,
      stream: true,
    });
    const chat = await streamEvents({ model: 'sim/gpt-4o-mini', input: 'Hi', debug: { echo_upstream_body: true } });
    expect(chat.events[0]!.debug.echo_upstream_body).toMatchObject({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
  });

  it('takes images in input on every path', async () => {
    const pixel = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    for (const model of ['sim/gpt-4o-mini', 'sim/gpt-5-mini', 'sim/claude-sonnet']) {
      const withImage = await openai.responses.create({
        model,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', image_url: pixel, detail: 'auto' },
            ],
          },
        ],
      });
      const without = await openai.responses.create({
        model,
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is this?' }] }],
      });
      expect(withImage.status, model).toBe('completed');
      expect(withImage.usage!.input_tokens, model).toBeGreaterThan(without.usage!.input_tokens);
    }
  });
});

describe('failures', () => {
  it('ends a stream that fails after its first event with response.failed and the canonical error type, on both OpenAI-format ways out', async () => {
    for (const model of ['sim/gpt-4o-mini-stream-error', 'sim/gpt-5-mini-stream-error']) {
      const { status, events, names } = await streamEvents({ model, input: 'Tell me about gateways' });
      expect(status, model).toBe(200);
      expect(names[0]).toBe('response.created');
      const last = events.at(-1)!;
      expect(names.at(-1), model).toBe('response.failed');
      expect(last, model).toMatchObject({
        type: 'response.failed',
        response: {
          status: 'failed',
          error_type: 'provider_unavailable',
          error: { code: 'provider_unavailable', message: expect.any(String) },
        },
      });
      expect(events.at(-2), model).toMatchObject({ type: 'error', code: 'provider_unavailable' });
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
      expect(events.some((event) => event.type === 'response.completed')).toBe(false);
    }
  });

  it('cancels the provider call when the client of a stream goes away', async () => {
    const upstreamModel = 'gpt-5-mini;chunk-delay=100;reply-tokens=120';
    const statsOf = async () =>
      (await fetch(`${stack.simulatorUrl}/sim/streams?key=${encodeURIComponent(upstreamModel)}`)).json() as Promise<{
        started: number;
        finished: number;
        abandoned: number;
      }>;
    const before = await statsOf();
    const controller = new AbortController();
    const response = await fetch(`${stack.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/gpt-5-mini-slow', input: 'Tell me a long story', stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read(); // the stream has started
    controller.abort();
    await expect.poll(async () => (await statsOf()).abandoned - before.abandoned, { timeout: 30_000, interval: 100 }).toBe(1);
    expect((await statsOf()).finished - before.finished).toBe(0);
  });

  it('makes the openai client throw on a stream that fails part-way, after the text it already yielded', async () => {
    const stream = openai.responses.stream({ model: 'sim/gpt-5-mini-stream-error', input: 'Tell me about gateways' });
    let text = '';
    await expect(
      (async () => {
        for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
      })(),
    ).rejects.toThrow();
    expect(text).toMatch(/^Simulated reply/);
  });

  it('answers errors before the first event with the envelope and the status chat completions gives', async () => {
    const unknown = await call('/responses', { body: { model: 'sim/no-such-model', input: 'Hi' } });
    expect(unknown.status).toBe(404);
    expect(envelopeOf(unknown).metadata).toMatchObject({ error_type: 'not_found' });
    const unavailable = await call('/responses', { body: { model: 'sim/unavailable', input: 'Hi', stream: true } });
    expect(unavailable.status).toBe(503);
    expect(envelopeOf(unavailable).metadata).toMatchObject({ error_type: 'provider_unavailable' });
    const noKey = await call('/responses', { key: null, body: { model: 'sim/gpt-4o-mini', input: 'Hi' } });
    expect(noKey.status).toBe(401);
    envelopeOf(noKey);
  });

  it('refuses bad bodies with 400 envelopes that name the problem', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v'])) }, /metadata/],
      [{ metadata: { 'bad[key]': 'v' } }, /metadata/],
      [{ metadata: { ['k'.repeat(65)]: 'v' } }, /metadata/],
      [{ metadata: { k: 'v'.repeat(513) } }, /metadata/],
      [{ previous_response_id: 'resp_123' }, /previous_response_id/],
      [{ max_tool_calls: 31 }, /max_tool_calls/],
      [{ store: true }, /store/],
      [{ session_id: 's'.repeat(257) }, /session_id/],
      [{ user: 'u'.repeat(257) }, /user/],
      [{ truncation: 'sometimes' }, /truncation/],
      [{ include: ['everything'] }, /include/],
      [{ tools: [{ type: 'service:code_interpreter' }] }, /service:code_interpreter is not supported/],
      [
        { tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] },
        /tools of type file_search are not supported: it searches vector stores/,
      ],
      [{ plugins: [{ id: 'fusion' }] }, /fusion plugin is not supported here/],
      [{ plugins: [{ id: 'telepathy' }] }, /unknown plugin "telepathy"/],
      [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, /item_reference/],
      [{ text: { format: { type: 'json_schema' } } }, /text\.format/],
      [{ temperature: 3 }, /temperature/],
    ];
    for (const [fields, message] of cases) {
      const result = await call('/responses', { body: { model: 'sim/gpt-4o-mini', input: 'Hi', ...fields } });
      expect(result.status, JSON.stringify(fields).slice(0, 80)).toBe(400);
      const error = envelopeOf(result);
      expect(error.message, JSON.stringify(fields).slice(0, 80)).toMatch(message);
      expect(error.metadata).toMatchObject({ error_type: 'invalid_request' });
    }
    // The bounds themselves pass.
    const atBounds = await call('/responses', {
      body: {
        model: 'sim/gpt-4o-mini',
        input: 'Hi',
        max_tool_calls: 30,
        previous_response_id: null,
        store: false,
        metadata: Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`k${index}`.padEnd(64, 'x'), 'v'.repeat(512)])),
      },
    });
    expect(atBounds.status).toBe(200);
  });
});

describe('routing, presets and metadata as on chat', () => {
  it('reports routing metadata under service_metadata when opted in, on the legacy header too', async () => {
    for (const header of ['x-service-metadata', 'x-service-experimental-metadata']) {
      const result = await call('/responses', {
        body: { model: 'sim/gpt-4o-mini-fallback', input: 'Hi' },
        headers: { [header]: 'enabled' },
      });
      expect(result.status).toBe(200);
      expect((result.body as Record<string, any>).service_metadata).toMatchObject({
        attempt: 2,
        requested: 'sim/gpt-4o-mini-fallback',
        is_byok: false,
      });
    }
    const plain = await call('/responses', { body: { model: 'sim/gpt-4o-mini', input: 'Hi' } });
    expect(plain.body).not.toHaveProperty('service_metadata');
  });

  it('applies a stored prompt (a preset): its system prompt with the variables filled, and its config', async () => {
    const slug = `resp-e2e-${Date.now().toString(36)}`;
    const created = await call(`/presets/${slug}/chat/completions`, {
      key: stack.managementKey,
      body: {
        model: 'sim/gpt-4o-mini',
        temperature: 0.3,
        messages: [{ role: 'system', content: 'You help {{customer}} with {{topic}}.' }],
      },
    });
    expect(created.status).toBe(200);
    const { events } = await streamEvents({
      prompt: { id: slug, variables: { customer: 'Ada', topic: { type: 'input_text', text: 'gateways' } } },
      input: 'Hi',
      debug: { echo_upstream_body: true },
    });
    const upstream = events[0]!.debug.echo_upstream_body as {
      messages: Array<{ role: string; content: string }>;
      temperature: number;
      model: string;
    };
    expect(upstream.messages[0]).toEqual({ role: 'system', content: 'You help Ada with gateways.' });
    expect(upstream).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.3 });
    expect(events.at(-1)!.response).toMatchObject({ model: 'sim/gpt-4o-mini', prompt: { id: slug } });
  });

  it('hashes safety_identifier and user before the provider sees them', async () => {
    const { events } = await streamEvents({
      model: 'sim/gpt-5-mini',
      input: 'Hi',
      user: 'alice@example.com',
      safety_identifier: 'alice@example.com',
      debug: { echo_upstream_body: true },
    });
    const upstream = events[0]!.debug.echo_upstream_body as Record<string, string>;
    expect(upstream.safety_identifier).toMatch(/^[0-9a-f]{32}$/);
    expect(upstream.user).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(upstream)).not.toContain('alice@example.com');
  });

  it('drops the oldest input with truncation auto when the conversation does not fit the context window', async () => {
    const long = 'word '.repeat(200_000);
    const input = [
      { role: 'user' as const, content: long },
      { role: 'assistant' as const, content: 'ok' },
      { role: 'user' as const, content: 'Short question' },
    ];
    const auto = await openai.responses.create({ model: 'sim/gpt-4o-mini', input, truncation: 'auto' });
    expect(auto.status).toBe('completed');
    expect(auto.output_text).toMatch(/^Simulated reply to: Short question/);
    const disabled = await call('/responses', { body: { model: 'sim/gpt-4o-mini', input, truncation: 'disabled' } });
    expect(disabled.status).toBe(400);
    expect(envelopeOf(disabled).metadata).toMatchObject({ error_type: 'context_length_exceeded' });
  });
});

describe('the Vercel AI SDK default OpenAI provider (Responses API)', () => {
  it('generateText and streamText on every listed chat model', async () => {
    for (const model of chatModels) {
      const generated = await generateText({ model: aiProvider(model.id), prompt: 'Tell me about gateways' });
      expect(generated.text, model.id).toMatch(/^Simulated reply to: Tell me about gateways/);
      expect(generated.finishReason, model.id).toBe('stop');
      expect(generated.usage.inputTokens, model.id).toBeGreaterThan(0);

      const streamed = streamText({ model: aiProvider(model.id), prompt: 'Tell me about gateways' });
      let text = '';
      for await (const part of streamed.textStream) text += part;
      expect(text, model.id).toBe(await streamed.text);
      expect(await streamed.finishReason, model.id).toBe('stop');
    }
  });

  it('runs a tool loop: the tool call, its result, and the final answer', async () => {
    for (const model of chatModels.filter((entry) => entry.supported_parameters.includes('tools'))) {
      const result = await generateText({
        model: aiProvider(model.id),
        prompt: 'Weather in Paris?',
        tools: {
          get_weather: tool({
            description: 'The weather of a city',
            inputSchema: jsonSchema<{ city: string }>({
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
              additionalProperties: false,
            }),
            execute: async ({ city }) => `sunny in ${city}`,
          }),
        },
        stopWhen: stepCountIs(3),
      });
      expect(result.steps.length, model.id).toBe(2);
      expect(result.steps[0]!.toolCalls[0], model.id).toMatchObject({ toolName: 'get_weather' });
      expect(result.text, model.id).toMatch(/^Based on the tool result: "sunny in /);
    }
  });
});

describe('the OpenRouter SDK (it validates every response and event against its schema)', () => {
  const sdk = new OpenRouter({ apiKey: stack.apiKey, serverURL: stack.baseUrl });

  it('parses the response object and the stream events on each way out', async () => {
    for (const model of ['sim/gpt-4o-mini', 'sim/gpt-5-mini', 'sim/claude-sonnet']) {
      const response = (await sdk.responses.send({
        responsesRequest: { model, input: 'Tell me about gateways', metadata: { run: 'sdk' } },
      })) as unknown as Record<string, any>;
      expect(response, model).toMatchObject({ object: 'response', status: 'completed', metadata: { run: 'sdk' } });
      expect(response.outputText, model).toMatch(/^Simulated reply to: Tell me about gateways/);
      expect(response.usage, model).toMatchObject({
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
        cost: expect.any(Number),
        costDetails: { upstreamInferenceInputCost: expect.any(Number) },
      });

      const stream = (await sdk.responses.send({
        responsesRequest: { model, input: 'Tell me about gateways', stream: true },
      })) as unknown as AsyncIterable<Record<string, any>>;
      const types: string[] = [];
      for await (const event of stream) types.push(String(event.type));
      expect(types[0], model).toBe('response.created');
      expect(types.at(-1), model).toBe('response.completed');
    }
  });
});
