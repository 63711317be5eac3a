import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { Batch } from 'openai/resources/batches';
import type { ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/**
 * What the clients send that issue 28 left as 400s or in one shape only, through the gateway
 * with the clients themselves (`openai`, `@anthropic-ai/sdk`); the metadata field's name is in
 * metadata-opt-in.e2e-spec.ts.
 */
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: stack.apiKey, baseURL: new URL(stack.baseUrl).origin, maxRetries: 0 });
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe("GET /v1/models in Anthropic's list shape", () => {
  it('@anthropic-ai/sdk models.list pages through every model GET /v1/models lists', async () => {
    const listed = (await openai.models.list()).data.map((model) => model.id);
    const first = await anthropic.models.list({ limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.data[0]).toMatchObject({ type: 'model', id: listed[0], display_name: expect.any(String) });
    expect(first.has_more).toBe(true);
    const all: string[] = [];
    for await (const model of anthropic.models.list({ limit: 2 })) all.push(model.id);
    expect(all).toEqual(listed);
    const unknown = await call('/models?after_id=no-such-model', { method: 'GET', headers: { 'anthropic-version': '2023-06-01' } });
    expect(unknown.status).toBe(400);
    expect(envelopeOf(unknown).message).toContain('after_id');
  });
});

describe("batches' output and error files in GET /v1/files", () => {
  it('lists them with purpose batch_output, alone when asked by purpose, and pages past them', async () => {
    // The inline form (spec §4.3); a custom_id with a space runs through the gateway, and OpenAI refuses top_logprobs without logprobs.
    const created = await call('/batches', {
      body: {
        endpoint: '/v1/chat/completions',
        model: 'sim/gpt-4o-mini',
        completion_window: '24h',
        requests: [
          { custom_id: 'line ok', body: { messages: [{ role: 'user', content: 'Say ok' }], max_tokens: 8 } },
          { custom_id: 'line refused', body: { messages: [{ role: 'user', content: 'Say no' }], max_tokens: 8, top_logprobs: 2 } },
        ],
      },
    });
    expect(created.status).toBe(202);
    const batch = await settled((created.body as { id: string }).id);
    expect(batch.output_file_id).toBeTruthy();
    expect(batch.error_file_id).toBeTruthy();

    const listed = await openai.files.list();
    const ids = listed.data.map((file) => file.id);
    expect(ids).toEqual(expect.arrayContaining([batch.output_file_id, batch.error_file_id]));
    const output = listed.data.find((file) => file.id === batch.output_file_id)!;
    expect(output).toEqual(await openai.files.retrieve(batch.output_file_id!));
    expect(output).toMatchObject({ object: 'file', purpose: 'batch_output', filename: `${batch.id}_output.jsonl` });
    expect(output.bytes).toBe(Buffer.byteLength(await (await openai.files.content(batch.output_file_id!)).text()));

    const outputs = (await openai.files.list({ purpose: 'batch_output' })).data;
    expect(outputs.every((file) => file.purpose === 'batch_output')).toBe(true);
    expect(outputs.map((file) => file.id)).toEqual(expect.arrayContaining([batch.output_file_id, batch.error_file_id]));
    const paged: string[] = [];
    for await (const file of openai.files.list({ limit: 1 })) paged.push(file.id);
    expect(paged).toEqual(ids);
  });
});

describe('images in tool results, on OpenAI-format models', () => {
  it('/v1/messages: a tool_result with an image reaches a chat-completions model (the image in a user turn after it)', async () => {
    const turn = (content: Anthropic.ToolResultBlockParam['content']) =>
      anthropic.messages.create({
        model: 'sim/gpt-4o-mini',
        max_tokens: 64,
        tools: [{ name: 'screenshot', description: 'Take a screenshot', input_schema: { type: 'object', properties: {} } }],
        messages: [
          { role: 'user', content: 'Take a screenshot.' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content }] },
        ],
      });
    const textOnly = await turn([{ type: 'text', text: 'a red square' }]);
    const withImage = await turn([
      { type: 'text', text: 'a red square' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
    ]);
    expect(withImage.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('a red square') });
    // The simulated model counts 85 tokens an image: it saw the image.
    expect(withImage.usage.input_tokens).toBeGreaterThanOrEqual(textOnly.usage.input_tokens + 85);
  });

  it.each(['sim/gpt-4o-mini', 'sim/gpt-5-mini'])('/v1/responses (%s): a function_call_output with input_image parts', async (model) => {
    const turn = (output: Extract<ResponseInputItem, { type: 'function_call_output' }>['output']) =>
      openai.responses.create({
        model,
        tools: [{ type: 'function', name: 'screenshot', parameters: { type: 'object', properties: {} }, strict: false }],
        input: [
          { role: 'user', content: 'Take a screenshot.' },
          { type: 'function_call', call_id: 'call_1', name: 'screenshot', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output },
        ],
      });
    const textOnly = await turn([{ type: 'input_text', text: 'a red square' }]);
    const withImage = await turn([
      { type: 'input_text', text: 'a red square' },
      { type: 'input_image', image_url: `data:image/png;base64,${PIXEL}`, detail: 'auto' },
    ]);
    expect(withImage.output_text).toContain('a red square');
    expect(withImage.usage!.input_tokens).toBeGreaterThan(textOnly.usage!.input_tokens);
  });
});

describe('web_search filters and location, run by the service web search', () => {
  const host = () => new URL(stack.searchSimulatorUrl).hostname;
  const search = (tool: Tool) =>
    openai.responses.create({ model: 'sim/gpt-4o-mini', tools: [tool], input: 'Search the web for the capital of Atlantis.' });

  it('allowed_domains keeps results on those domains only; user_location is taken', async () => {
    const kept = await search({
      type: 'web_search',
      filters: { allowed_domains: [host()] },
      user_location: { type: 'approximate', country: 'GB', city: 'London', region: 'England', timezone: 'Europe/London' },
      search_context_size: 'low',
    });
    expect(kept.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
    expect(kept.output_text).toContain(`${stack.searchSimulatorUrl}/pages/atlantis-capital`);

    const elsewhere = await search({ type: 'web_search_preview', filters: { allowed_domains: ['elsewhere.example'] } } as Tool);
    expect(elsewhere.output_text).not.toContain('/pages/');
    expect(elsewhere.output_text).toContain('found nothing');
  });

  it('a domain that is not a host name is a 400 naming it', async () => {
    const result = await call('/responses', {
      body: { model: 'sim/gpt-4o-mini', input: 'Hi', tools: [{ type: 'web_search', filters: { allowed_domains: ['not a domain'] } }] },
    });
    expect(result.status).toBe(400);
    expect(envelopeOf(result).message).toContain('allowed_domains');
  });
});

describe('custom tools with a grammar', () => {
  const colour: Tool = {
    type: 'custom',
    name: 'set_colour',
    description: 'Set the colour',
    format: { type: 'grammar', syntax: 'regex', definition: '(red|green|blue)' },
  };
  const asked = (input: string) => `call set_colour with {"input": "${input}"}`;

  it.each(['sim/gpt-4o-mini', 'sim/gpt-5-mini'])(
    '%s: sent natively, the call a custom_tool_call; a colour the grammar does not allow is never called',
    async (model) => {
      const response = await openai.responses.create({ model, tools: [colour], input: asked('green') });
      expect(response.output).toMatchObject([{ type: 'custom_tool_call', name: 'set_colour', input: 'green' }]);
      const made = response.output[0] as Extract<ResponseInputItem, { type: 'custom_tool_call' }>;
      const next = await openai.responses.create({
        model,
        tools: [colour],
        input: [
          { role: 'user', content: asked('green') },
          made,
          { type: 'custom_tool_call_output', call_id: made.call_id, output: 'now green' },
        ],
      });
      expect(next.output_text).toContain('now green');
      // The upstream constrains the input: asked for a colour outside the grammar, it does not call the tool.
      const refused = await openai.responses.create({ model, tools: [colour], input: asked('purple') });
      expect(refused.output.map((item) => item.type)).toEqual(['message']);
    },
  );

  it('streamed: the input arrives in custom_tool_call_input events', async () => {
    const stream = await openai.responses.create({ model: 'sim/gpt-4o-mini', tools: [colour], input: asked('blue'), stream: true });
    const done: unknown[] = [];
    for await (const event of stream) if (event.type === 'response.custom_tool_call_input.done') done.push(event);
    expect(done).toMatchObject([{ input: 'blue' }]);
  });

  it('a model whose API cannot hold a grammar, and chat completions, answer 400 naming it', async () => {
    const anthropicModel = await call('/responses', { body: { model: 'sim/claude-sonnet', input: 'Hi', tools: [colour] } });
    expect(anthropicModel.status).toBe(400);
    expect(envelopeOf(anthropicModel).message).toMatch(/grammar/);
    const chat = await call('/chat/completions', {
      body: {
        model: 'sim/gpt-4o-mini',
        messages: [{ role: 'user', content: 'Hi' }],
        tools: [{ type: 'custom', custom: { name: 'set_colour' } }],
      },
    });
    expect(chat.status).toBe(400);
    expect(envelopeOf(chat).message).toMatch(/custom.*\/v1\/responses/);
  });
});

async function settled(id: string): Promise<Batch> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const batch = await openai.batches.retrieve(id);
    if (['completed', 'failed', 'expired', 'cancelled'].includes(batch.status)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
