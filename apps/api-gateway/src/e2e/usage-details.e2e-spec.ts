import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stack } from './e2e-helpers.js';

/**
 * Every usage detail a provider reports reaches the caller and the generation record, priced
 * from the catalog: the simulator is asked directly for the same call, and the gateway's usage
 * is compared with it field by field.
 */
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: stack.apiKey, baseURL: stack.baseUrl.replace(/\/v1$/, ''), maxRetries: 0 });
const messages = [
  {
    role: 'user' as const,
    content: 'Tell me about gateways, the ones that route requests to many providers and keep the books on every token they see',
  },
];

async function simulator(path: string, headers: Record<string, string>, body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await fetch(`${stack.simulatorUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

describe('usage details', () => {
  const database = new pg.Client({ connectionString: stack.inferenceDatabaseUrl });
  beforeAll(() => database.connect());
  afterAll(() => database.end());

  async function usageDetailsOf(id: string): Promise<unknown> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const { rows } = await database.query<{ usage_details: unknown }>('SELECT usage_details FROM generations WHERE id = $1', [id]);
      if (rows[0]) return rows[0].usage_details;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no generation record for ${id}`);
  }

  it('an OpenAI-format provider: cached, cache-write, audio and reasoning tokens, audio priced apart', async () => {
    const direct = await simulator(
      '/openai/v1/chat/completions',
      { authorization: 'Bearer sk-sim' },
      { model: 'gpt-4o-mini;audio-in=6;audio-out=4;cached=3;cache-write=2;reasoning=5', messages },
    );
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-audio-details', messages });
    const usage = completion.usage as unknown as Record<string, any>;
    expect(usage.prompt_tokens).toBe(direct.usage.prompt_tokens);
    expect(usage.completion_tokens).toBe(direct.usage.completion_tokens);
    expect(usage.prompt_tokens_details).toEqual({ cached_tokens: 3, cache_write_tokens: 2, audio_tokens: 6 });
    expect(usage.completion_tokens_details).toEqual({ reasoning_tokens: 5, audio_tokens: 4 });
    const prompt = (usage.prompt_tokens - 3 - 2 - 6) * 0.0000025 + 3 * 0.00000125 + 2 * 0.000003 + 6 * 0.00004;
    const completionCost = (usage.completion_tokens - 4) * 0.00001 + 4 * 0.00008;
    expect(usage.cost).toBeCloseTo(prompt + completionCost, 12);
    expect(usage.cost_details.upstream_inference_prompt_cost).toBeCloseTo(prompt, 12);
    expect(await usageDetailsOf(completion.id)).toEqual({ cache_write_tokens: 2, prompt_audio_tokens: 6, completion_audio_tokens: 4 });

    const streamed = await openai.chat.completions.create({
      model: 'sim/gpt-4o-audio-details',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let last: Record<string, any> | undefined;
    for await (const chunk of streamed) last = chunk as unknown as Record<string, any>;
    expect(last!.usage.prompt_tokens_details).toEqual(usage.prompt_tokens_details);
    expect(last!.usage.completion_tokens_details).toEqual(usage.completion_tokens_details);
  });

  it('an Anthropic-format provider: cache reads and writes, and web searches as server_tool_use, on chat and on /v1/messages', async () => {
    const direct = await simulator(
      '/anthropic/v1/messages',
      { 'x-api-key': 'sk-sim', 'anthropic-version': '2023-06-01' },
      { model: 'claude-sonnet-4-5;cached=5;cache-write=7;web-search=2', max_tokens: 256, messages },
    );
    const completion = await openai.chat.completions.create({ model: 'sim/claude-sonnet-details', messages, max_tokens: 256 });
    const usage = completion.usage as unknown as Record<string, any>;
    expect(usage.prompt_tokens).toBe(direct.usage.input_tokens + 5 + 7);
    expect(usage.completion_tokens).toBe(direct.usage.output_tokens);
    expect(usage.prompt_tokens_details).toEqual({ cached_tokens: 5, cache_write_tokens: 7 });
    const tools = { tool_calls_executed: 2, tool_calls_requested: 2, web_search_requests: 2 };
    expect(usage.server_tool_use).toEqual(tools);
    expect(usage.server_tool_use_details).toEqual(tools);
    expect(await usageDetailsOf(completion.id)).toEqual({
      cache_write_tokens: 7,
      server_tool_calls_executed: 2,
      server_tool_calls_requested: 2,
      web_search_requests: 2,
    });

    const message = await anthropic.messages.create({ model: 'sim/claude-sonnet-details', max_tokens: 256, messages });
    expect(message.usage).toMatchObject({
      input_tokens: direct.usage.input_tokens,
      output_tokens: direct.usage.output_tokens,
      cache_read_input_tokens: 5,
      cache_creation_input_tokens: 7,
      server_tool_use: { web_search_requests: 2 },
    });
  });
});
