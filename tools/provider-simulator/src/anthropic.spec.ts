import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from './index.ts';
import { ANTHROPIC_AUTH, parseSse, post } from './spec-helpers.ts';

let sim: RunningSimulator;
let url: string;
beforeAll(async () => {
  sim = await startSimulator();
  url = `${sim.url}/anthropic/v1/messages`;
});
afterAll(() => sim.close());

const req = (extra: Record<string, unknown> = {}) => ({
  model: 'claude-sim',
  max_tokens: 256,
  messages: [{ role: 'user', content: 'Hello, world!' }],
  ...extra,
});

describe('Anthropic Messages API over HTTP', () => {
  it('answers with the exact message shape', async () => {
    const r = await post(url, req({ system: [{ type: 'text', text: 'Be brief.' }] }), ANTHROPIC_AUTH);
    expect(r.status).toBe(200);
    expect(r.json.id).toMatch(/^msg_/);
    expect(r.json).toEqual({
      id: r.json.id,
      type: 'message',
      role: 'assistant',
      model: 'claude-sim',
      content: [{ type: 'text', text: r.json.content[0].text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      // system 3 + "Hello, world!" 4 + 3 per message + 3
      usage: { input_tokens: 13, output_tokens: 24, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
    });
    expect(r.json.content[0].text).toMatch(/^Simulated reply to: Hello, world\./);
  });

  it('checks the key and anthropic-version headers', async () => {
    const none = await post(url, req(), { 'anthropic-version': '2023-06-01' });
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } });
    const bad = await post(url, req(), { 'x-api-key': 'sk-ant-sim-invalid', 'anthropic-version': '2023-06-01' });
    expect(bad.status).toBe(401);
    expect(bad.json.error.type).toBe('authentication_error');
    const noVersion = await post(url, req(), { 'x-api-key': 'k' });
    expect(noVersion.status).toBe(400);
    expect(noVersion.json.error.type).toBe('invalid_request_error');
    const bearer = await post(url, req(), { authorization: 'Bearer k', 'anthropic-version': '2023-06-01' });
    expect(bearer.status).toBe(200);
  });

  it('validates the body', async () => {
    const noMax = await post(url, { model: 'claude-sim', messages: [{ role: 'user', content: 'x' }] }, ANTHROPIC_AUTH);
    expect(noMax.status).toBe(400);
    expect(noMax.json).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
    const sys = await post(url, req({ messages: [{ role: 'system', content: 'x' }] }), ANTHROPIC_AUTH);
    expect(sys.json.error.message).toContain('Unexpected role "system"');
    const budget = await post(url, req({ max_tokens: 1000, thinking: { type: 'enabled', budget_tokens: 1024 } }), ANTHROPIC_AUTH);
    expect(budget.status).toBe(400);
  });

  it('refuses unknown fields as Anthropic does', async () => {
    const extra = await post(url, req({ top_a: 0.1 }), ANTHROPIC_AUTH);
    expect(extra.status).toBe(400);
    expect(extra.json).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'top_a: Extra inputs are not permitted' },
    });
    const metadata = await post(url, req({ metadata: { user_id: 'u', trace: 'x' } }), ANTHROPIC_AUTH);
    expect(metadata.json.error.message).toBe('metadata.trace: Extra inputs are not permitted');
  });

  it('takes the service tiers Anthropic knows and reports the one used', async () => {
    const bad = await post(url, req({ service_tier: 'priority' }), ANTHROPIC_AUTH);
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toBe("service_tier: Input should be 'auto' or 'standard_only'");
    expect((await post(url, req({ service_tier: 'auto' }), ANTHROPIC_AUTH)).json.usage.service_tier).toBe('priority');
    expect((await post(url, req({ service_tier: 'standard_only' }), ANTHROPIC_AUTH)).json.usage.service_tier).toBe('standard');
  });

  it('answers JSON matching output_config.format (structured outputs), and checks its shape', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const ok = await post(url, req({ output_config: { format: { type: 'json_schema', schema } } }), ANTHROPIC_AUTH);
    expect(ok.status).toBe(200);
    expect(Object.keys(JSON.parse(ok.json.content[0].text))).toEqual(['city']);
    const wrongType = await post(url, req({ output_config: { format: { type: 'json_object' } } }), ANTHROPIC_AUTH);
    expect(wrongType.json.error.message).toBe("output_config.format.type: Input should be 'json_schema'");
    const extra = await post(url, req({ output_config: { style: 'x' } }), ANTHROPIC_AUTH);
    expect(extra.json.error.message).toBe('output_config.style: Extra inputs are not permitted');
  });

  it('writes a marked prefix of 1,024+ tokens to the cache, reads it after, and refuses a fifth breakpoint', async () => {
    const system = [
      { type: 'text', text: `Cache test ${Date.now()}. ${'Long context. '.repeat(600)}`, cache_control: { type: 'ephemeral' } },
    ];
    const first = await post(url, req({ system }), ANTHROPIC_AUTH);
    expect(first.json.usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(1024);
    expect(first.json.usage.cache_read_input_tokens).toBe(0);
    const second = await post(url, req({ system }), ANTHROPIC_AUTH);
    expect(second.json.usage.cache_read_input_tokens).toBe(first.json.usage.cache_creation_input_tokens);
    expect(second.json.usage.cache_creation_input_tokens).toBe(0);
    const short = await post(url, req({ system: [{ type: 'text', text: 'short', cache_control: { type: 'ephemeral' } }] }), ANTHROPIC_AUTH);
    expect(short.json.usage.cache_creation_input_tokens).toBe(0);
    const five = Array.from({ length: 5 }, (_, i) => ({ type: 'text', text: `p${i}`, cache_control: { type: 'ephemeral' } }));
    const refused = await post(url, req({ messages: [{ role: 'user', content: five }] }), ANTHROPIC_AUTH);
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });

  it('caches automatically with a top-level cache_control, and reports the speed and region asked for', async () => {
    const messages = [{ role: 'user', content: `Automatic cache ${Date.now()}. ${'Long context. '.repeat(600)}` }];
    const body = req({ messages, cache_control: { type: 'ephemeral' }, speed: 'fast', inference_geo: 'us' });
    const first = await post(url, body, ANTHROPIC_AUTH);
    expect(first.status).toBe(200);
    expect(first.json.usage).toMatchObject({ cache_read_input_tokens: 0, speed: 'fast', inference_geo: 'us' });
    expect(first.json.usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(1024);
    const second = await post(url, body, ANTHROPIC_AUTH);
    expect(second.json.usage.cache_read_input_tokens).toBe(first.json.usage.cache_creation_input_tokens);
    const bad = await post(url, req({ speed: 'slow' }), ANTHROPIC_AUTH);
    expect(bad.json.error.message).toBe("speed: Input should be 'standard' or 'fast'");
    const badControl = await post(url, req({ cache_control: { type: 'persistent' } }), ANTHROPIC_AUTH);
    expect(badControl.json.error.message).toBe("cache_control.type: Input should be 'ephemeral'");
  });

  it('stops at max_tokens and at stop sequences', async () => {
    const a = await post(url, req({ max_tokens: 3 }), ANTHROPIC_AUTH);
    expect(a.json).toMatchObject({
      stop_reason: 'max_tokens',
      stop_sequence: null,
      content: [{ type: 'text', text: 'Simulated reply to' }],
    });
    expect(a.json.usage.output_tokens).toBe(3);
    const b = await post(url, req({ stop_sequences: ['reply'] }), ANTHROPIC_AUTH);
    expect(b.json).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'reply', content: [{ type: 'text', text: 'Simulated ' }] });
  });

  it('calls every offered tool at once with parallel-tools=1, one when the request forbids it', async () => {
    const tools = ['get_weather', 'get_time'].map((name) => ({
      name,
      input_schema: { type: 'object', properties: { place: { type: 'string' } }, required: ['place'] },
    }));
    const both = await post(url, req({ model: 'claude-sim;parallel-tools=1', tools, tool_choice: { type: 'any' } }), ANTHROPIC_AUTH);
    expect(both.json.stop_reason).toBe('tool_use');
    expect(both.json.content.map((block: { name: string }) => block.name)).toEqual(['get_weather', 'get_time']);
    const one = await post(
      url,
      req({ model: 'claude-sim;parallel-tools=1', tools, tool_choice: { type: 'any', disable_parallel_tool_use: true } }),
      ANTHROPIC_AUTH,
    );
    expect(one.json.content.map((block: { name: string }) => block.name)).toEqual(['get_weather']);
  });

  it("ends with stop_reason refusal and its stop_details when Claude's classifiers intervene", async () => {
    const prompt = await post(url, req({ model: 'claude-sim;safety-block=1' }), ANTHROPIC_AUTH);
    expect(prompt.json).toMatchObject({
      content: [],
      stop_reason: 'refusal',
      stop_details: { type: 'refusal', category: 'general_harms' },
    });
    expect(prompt.json.usage.output_tokens).toBe(0);
    const answer = await post(url, req({ model: 'claude-sim;safety-block=2' }), ANTHROPIC_AUTH);
    expect(answer.json).toMatchObject({ content: [{ type: 'text', text: 'Simulated reply' }], stop_reason: 'refusal' });
    expect(answer.json.usage.output_tokens).toBe(2);
  });

  it('answers a thinking block first when thinking is enabled', async () => {
    const r = await post(url, req({ max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } }), ANTHROPIC_AUTH);
    expect(r.json.content.map((b: any) => b.type)).toEqual(['thinking', 'text']);
    expect(r.json.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Thinking about how to answer: Hello, world!',
      signature: r.json.content[0].signature,
    });
    expect(r.json.usage.output_tokens).toBe(24 + 10);
  });

  it('counts image, tool_use and tool_result blocks and quotes tool results', async () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'w', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Sunny' }] }] },
    ];
    const r = await post(url, req({ messages }), ANTHROPIC_AUTH);
    expect(r.json.content).toEqual([{ type: 'text', text: 'Based on the tool result: "Sunny".' }]);
    // "Weather?" 2 + image 85 | w {"city":"Paris"} = 1 + 9 | Sunny 1 ; + 3 per message x3 + 3
    expect(r.json.usage.input_tokens).toBe(2 + 85 + 10 + 1 + 9 + 3);
  });

  it('streams events in Anthropic SSE format', async () => {
    const r = await post(url, req({ stream: true }), ANTHROPIC_AUTH);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(r.text);
    const types = events.map((e) => e.event);
    expect(types.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(types.slice(-4)).toEqual(['content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
    const start = JSON.parse(events[0]!.data);
    expect(start.message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sim',
      content: [],
      stop_reason: null,
      stop_sequence: null,
    });
    expect(start.message.usage.input_tokens).toBe(10);
    const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => JSON.parse(e.data));
    for (const d of deltas) expect(d).toMatchObject({ index: 0, delta: { type: 'text_delta' } });
    const plain = await post(url, req(), ANTHROPIC_AUTH);
    expect(deltas.map((d) => d.delta.text).join('')).toBe(plain.json.content[0].text);
    expect(JSON.parse(events[events.length - 2]!.data)).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null },
      usage: { output_tokens: 24 },
    });
  });

  it('streams tool_use with input_json_delta', async () => {
    const tools = [{ name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }];
    const r = await post(url, req({ stream: true, tools }), ANTHROPIC_AUTH);
    const events = parseSse(r.text).map((e) => JSON.parse(e.data));
    expect(events[1].content_block).toMatchObject({ type: 'tool_use', name: 'lookup', input: {} });
    const json = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => e.delta.partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ q: 'Hello, world!' });
    expect(events.find((e) => e.type === 'message_delta').delta.stop_reason).toBe('tool_use');
  });

  it('serves count_tokens', async () => {
    const r = await post(
      `${url}/count_tokens`,
      { model: 'claude-sim', messages: [{ role: 'user', content: 'Hello, world!' }] },
      ANTHROPIC_AUTH,
    );
    expect(r.json).toEqual({ input_tokens: 10 });
  });
});

describe("Anthropic's betas and today's fields", () => {
  const withSystem = req({
    messages: [
      { role: 'user', content: 'Hello' },
      { role: 'system', content: 'Be brief.' },
    ],
  });

  it('takes a system message inside messages only with the mid-conversation-system beta', async () => {
    const refused = await post(url, withSystem, ANTHROPIC_AUTH);
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/Unexpected role "system"/);
    const taken = await post(url, withSystem, { ...ANTHROPIC_AUTH, 'anthropic-beta': 'other-1, mid-conversation-system-2026-04-07' });
    expect(taken.status).toBe(200);
    expect(taken.json.content[0].text).toMatch(/^Simulated reply to: Hello/);
  });

  it('takes context_management only with its beta', async () => {
    const body = req({ context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] } });
    const refused = await post(url, body, ANTHROPIC_AUTH);
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toBe('context_management: Extra inputs are not permitted');
    expect((await post(url, body, { ...ANTHROPIC_AUTH, 'anthropic-beta': 'context-management-2025-06-27' })).status).toBe(200);
  });

  it('count_tokens answers {input_tokens} and refuses what the count endpoint does not take', async () => {
    const countUrl = `${url}/count_tokens`;
    const counted = await post(countUrl, { model: 'claude-sim', messages: [{ role: 'user', content: 'Hello, world!' }] }, ANTHROPIC_AUTH);
    expect(counted.status).toBe(200);
    expect(counted.json).toEqual({ input_tokens: expect.any(Number) });
    const message = await post(url, req(), ANTHROPIC_AUTH);
    expect(counted.json.input_tokens).toBe(message.json.usage.input_tokens);
    const refused = await post(countUrl, req(), ANTHROPIC_AUTH);
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toBe('max_tokens: Extra inputs are not permitted');
  });

  it('calls the tool the user names ("use the Read tool") with the path written after it, required properties only', async () => {
    const tools = [
      { name: 'Agent', input_schema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } },
      {
        name: 'Read',
        input_schema: {
          type: 'object',
          properties: { file_path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
          required: ['file_path'],
        },
      },
    ];
    const text = 'Use the Read tool to read /tmp/x/note.txt, then answer.';
    const r = await post(url, req({ tools, messages: [{ role: 'user', content: text }] }), ANTHROPIC_AUTH);
    expect(r.json.stop_reason).toBe('tool_use');
    expect(r.json.content.at(-1)).toMatchObject({ type: 'tool_use', name: 'Read', input: { file_path: '/tmp/x/note.txt' } });
    // Unnamed: the first tool, as before.
    const first = await post(url, req({ tools, messages: [{ role: 'user', content: 'Hello' }] }), ANTHROPIC_AUTH);
    expect(first.json.content.at(-1)).toMatchObject({ type: 'tool_use', name: 'Agent' });
  });
});
