import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from './index.ts';
import { OPENAI_AUTH, parseSse, post } from './spec-helpers.ts';
import { countTokens } from './tokens.ts';

let sim: RunningSimulator;
let chatUrl: string;
beforeAll(async () => {
  sim = await startSimulator();
  chatUrl = `${sim.url}/openai/v1/chat/completions`;
});
afterAll(() => sim.close());

const user = (content: string) => [{ role: 'user', content }];
const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' }, metric: { type: 'boolean' } },
      required: ['city'],
    },
  },
};

describe('OpenAI chat completions over HTTP', () => {
  it("refuses unknown top-level arguments with OpenAI's 400", async () => {
    const r = await post(chatUrl, { model: 'sim-gpt', messages: user('Hi'), top_k: 5 }, OPENAI_AUTH);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      error: { message: 'Unrecognized request argument supplied: top_k', type: 'invalid_request_error', param: null, code: null },
    });
  });

  it('answers with the exact chat.completion shape and token counts', async () => {
    const r = await post(chatUrl, { model: 'sim-gpt', messages: user('Hello, world!') }, OPENAI_AUTH);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    const body = r.json;
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body).toMatchObject({ object: 'chat.completion', model: 'sim-gpt', system_fingerprint: 'fp_sim', service_tier: 'default' });
    expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(5);
    expect(body.choices).toHaveLength(1);
    const choice = body.choices[0];
    expect(choice).toMatchObject({ index: 0, logprobs: null, finish_reason: 'stop' });
    expect(choice.message).toEqual({ role: 'assistant', content: choice.message.content, refusal: null, annotations: [] });
    expect(choice.message.content.startsWith('Simulated reply to: Hello, world.')).toBe(true);
    // prompt: "Hello, world!" = 4 tokens + 3 per message + 3
    expect(body.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 24,
      total_tokens: 34,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    });
    expect(countTokens(choice.message.content)).toBe(24);
  });

  it('is deterministic and prompt-dependent', async () => {
    const a = await post(chatUrl, { model: 'm', messages: user('one two three') }, OPENAI_AUTH);
    const b = await post(chatUrl, { model: 'm', messages: user('one two three') }, OPENAI_AUTH);
    const c = await post(chatUrl, { model: 'm', messages: user('something else') }, OPENAI_AUTH);
    expect(a.json.choices[0].message.content).toBe(b.json.choices[0].message.content);
    expect(a.json.usage).toEqual(b.json.usage);
    expect(c.json.choices[0].message.content).not.toBe(a.json.choices[0].message.content);
  });

  it('also serves the bare /v1 prefix', async () => {
    const r = await post(`${sim.url}/v1/chat/completions`, { model: 'm', messages: user('hi') }, OPENAI_AUTH);
    expect(r.status).toBe(200);
    expect(r.json.object).toBe('chat.completion');
  });

  it('rejects missing and invalid keys with 401', async () => {
    const none = await post(chatUrl, { model: 'm', messages: user('hi') });
    expect(none.status).toBe(401);
    expect(none.json.error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    const bad = await post(chatUrl, { model: 'm', messages: user('hi') }, { authorization: 'Bearer sk-sim-invalid' });
    expect(bad.status).toBe(401);
    expect(bad.json.error.code).toBe('invalid_api_key');
  });

  it('validates like OpenAI', async () => {
    const noModel = await post(chatUrl, { messages: user('hi') }, OPENAI_AUTH);
    expect(noModel.status).toBe(400);
    expect(noModel.json.error).toEqual({
      message: 'you must provide a model parameter',
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
    const empty = await post(chatUrl, { model: 'm', messages: [] }, OPENAI_AUTH);
    expect(empty.status).toBe(400);
    expect(empty.json.error).toMatchObject({ type: 'invalid_request_error', param: 'messages', code: 'empty_array' });
    const missing = await post(chatUrl, { model: 'm' }, OPENAI_AUTH);
    expect(missing.json.error.code).toBe('missing_required_parameter');
    const role = await post(chatUrl, { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, OPENAI_AUTH);
    expect(role.json.error).toMatchObject({ param: 'messages[0].role', code: 'invalid_value' });
    const json = await post(chatUrl, '{not json', OPENAI_AUTH);
    expect(json.status).toBe(400);
    expect(json.json.error.message).toContain('could not parse the JSON body');
  });

  it("takes only OpenAI's service tiers and reports the one used", async () => {
    const fast = await post(chatUrl, { model: 'sim-gpt', messages: user('Hi'), service_tier: 'fast' }, OPENAI_AUTH);
    expect(fast.status).toBe(400);
    expect(fast.json.error).toMatchObject({ param: 'service_tier', code: 'invalid_value' });
    expect((await post(chatUrl, { model: 'sim-gpt', messages: user('Hi'), service_tier: 'priority' }, OPENAI_AUTH)).json.service_tier).toBe(
      'priority',
    );
    expect((await post(chatUrl, { model: 'sim-gpt', messages: user('Hi'), service_tier: 'auto' }, OPENAI_AUTH)).json.service_tier).toBe(
      'default',
    );
  });

  it('returns n choices, each different', async () => {
    const r = await post(chatUrl, { model: 'm', messages: user('hi'), n: 3 }, OPENAI_AUTH);
    expect(r.json.choices.map((c: any) => c.index)).toEqual([0, 1, 2]);
    expect(new Set(r.json.choices.map((c: any) => c.message.content)).size).toBe(3);
    expect(r.json.usage.completion_tokens).toBe(72);
  });

  it('truncates at max_completion_tokens / max_tokens with finish_reason length', async () => {
    const a = await post(chatUrl, { model: 'm', messages: user('hi'), max_completion_tokens: 5 }, OPENAI_AUTH);
    expect(a.json.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'Simulated reply to: hi' } });
    expect(a.json.usage.completion_tokens).toBe(5);
    const b = await post(chatUrl, { model: 'm', messages: user('hi'), max_tokens: 2 }, OPENAI_AUTH);
    expect(b.json.choices[0].message.content).toBe('Simulated reply');
  });

  it('cuts at stop sequences with finish_reason stop', async () => {
    const r = await post(chatUrl, { model: 'm', messages: user('hi'), stop: ['to:', 'zzz'] }, OPENAI_AUTH);
    expect(r.json.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Simulated reply ' } });
    expect(r.json.usage.completion_tokens).toBe(2);
  });

  it('returns logprobs with top_logprobs', async () => {
    const r = await post(chatUrl, { model: 'm', messages: user('hi'), logprobs: true, top_logprobs: 3, max_tokens: 4 }, OPENAI_AUTH);
    const lp = r.json.choices[0].logprobs;
    expect(lp.refusal).toBeNull();
    expect(lp.content.map((e: any) => e.token)).toEqual(['Simulated', ' reply', ' to', ':']);
    for (const e of lp.content) {
      expect(e.bytes).toEqual([...Buffer.from(e.token, 'utf8')]);
      expect(e.logprob).toBeLessThanOrEqual(0);
      expect(e.top_logprobs).toHaveLength(3);
      expect(e.top_logprobs[0].token).toBe(e.token);
      expect(e.top_logprobs[1].logprob).toBeLessThan(e.top_logprobs[0].logprob);
    }
  });

  it('returns a JSON object for response_format json_object and json_schema', async () => {
    const a = await post(chatUrl, { model: 'm', messages: user('hi'), response_format: { type: 'json_object' } }, OPENAI_AUTH);
    expect(JSON.parse(a.json.choices[0].message.content).reply).toMatch(/^Simulated reply to: hi\./);
    const schema = { type: 'object', properties: { answer: { type: 'string' }, score: { type: 'number' } }, required: ['answer', 'score'] };
    const b = await post(
      chatUrl,
      { model: 'm', messages: user('hi'), response_format: { type: 'json_schema', json_schema: { name: 's', schema } } },
      OPENAI_AUTH,
    );
    const parsed = JSON.parse(b.json.choices[0].message.content);
    expect(parsed.score).toBe(1);
    expect(parsed.answer).toMatch(/^Simulated reply to: hi\./);
  });

  it('calls the first tool (or the named one) with schema-built arguments', async () => {
    const other = { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } };
    const r = await post(chatUrl, { model: 'm', messages: user('Weather in Paris'), tools: [weatherTool, other] }, OPENAI_AUTH);
    const choice = r.json.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls[0];
    expect(call.id).toMatch(/^call_/);
    expect(call.type).toBe('function');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Weather in Paris', days: 1, metric: true });
    expect(r.json.usage.completion_tokens).toBe(countTokens(call.function.arguments));
    expect(r.json.usage.prompt_tokens).toBe(3 + 3 + 3 + countTokens(JSON.stringify([weatherTool, other])));

    const named = await post(
      chatUrl,
      { model: 'm', messages: user('x'), tools: [weatherTool, other], tool_choice: { type: 'function', function: { name: 'lookup' } } },
      OPENAI_AUTH,
    );
    expect(named.json.choices[0].message.tool_calls[0].function).toEqual({ name: 'lookup', arguments: '{"q":"x"}' });
    const none = await post(chatUrl, { model: 'm', messages: user('x'), tools: [weatherTool], tool_choice: 'none' }, OPENAI_AUTH);
    expect(none.json.choices[0].finish_reason).toBe('stop');
  });

  it('quotes tool results after a tool call', async () => {
    const messages = [
      { role: 'user', content: 'Weather in Paris' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
    ];
    const r = await post(chatUrl, { model: 'm', messages, tools: [weatherTool] }, OPENAI_AUTH);
    expect(r.json.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Based on the tool result: "{"temp":21}".' } });
  });

  it('streams chunks in OpenAI SSE format with usage', async () => {
    const r = await post(
      chatUrl,
      { model: 'sim-gpt', messages: user('Hello, world!'), stream: true, stream_options: { include_usage: true } },
      OPENAI_AUTH,
    );
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    expect(r.text.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = parseSse(r.text);
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    for (const c of chunks) expect(c).toMatchObject({ object: 'chat.completion.chunk', model: 'sim-gpt', system_fingerprint: 'fp_sim' });
    expect(chunks[0].choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: '', refusal: null },
      logprobs: null,
      finish_reason: null,
    });
    const finish = chunks[chunks.length - 2];
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 24, total_tokens: 34 });
    for (const c of chunks.slice(0, -1)) expect(c.usage).toBeNull();
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    const plain = await post(chatUrl, { model: 'sim-gpt', messages: user('Hello, world!') }, OPENAI_AUTH);
    expect(text).toBe(plain.json.choices[0].message.content);
    expect(chunks.length).toBeGreaterThan(5);
  });

  it('omits usage in chunks without include_usage and streams tool calls', async () => {
    const r = await post(chatUrl, { model: 'm', messages: user('Paris'), tools: [weatherTool], stream: true }, OPENAI_AUTH);
    const chunks = parseSse(r.text)
      .slice(0, -1)
      .map((e) => JSON.parse(e.data));
    for (const c of chunks) expect('usage' in c).toBe(false);
    const first = chunks[0].choices[0].delta;
    expect(first.role).toBe('assistant');
    expect(first.tool_calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(first.tool_calls[0].id).toMatch(/^call_/);
    const args = chunks
      .slice(1, -1)
      .map((c) => c.choices[0].delta.tool_calls[0].function.arguments)
      .join('');
    expect(JSON.parse(args)).toEqual({ city: 'Paris', days: 1, metric: true });
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('tool_calls');
  });

  it('rejects stream_options without stream', async () => {
    const r = await post(chatUrl, { model: 'm', messages: user('x'), stream_options: { include_usage: true } }, OPENAI_AUTH);
    expect(r.status).toBe(400);
  });
});

describe('other routes', () => {
  it('health, models, 404', async () => {
    expect(await (await fetch(`${sim.url}/health`)).json()).toEqual({ status: 'ok' });
    const models: any = await (await fetch(`${sim.url}/openai/v1/models`, { headers: OPENAI_AUTH })).json();
    expect(models.object).toBe('list');
    expect(models.data[0]).toEqual({ id: 'sim-gpt', object: 'model', created: 1700000000, owned_by: 'provider-simulator' });
    expect((await fetch(`${sim.url}/openai/v1/models`)).status).toBe(200);
    expect((await fetch(`${sim.url}/v1/models`, { headers: { authorization: 'Bearer sk-sim-invalid' } })).status).toBe(401);
    const one: any = await (await fetch(`${sim.url}/openai/v1/models/sim-gpt-mini`)).json();
    expect(one).toEqual({ id: 'sim-gpt-mini', object: 'model', created: 1700000000, owned_by: 'provider-simulator' });
    const missing = await fetch(`${sim.url}/nope`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.message).toContain('/nope');
    const oa404 = await post(`${sim.url}/openai/v1/nope`, {}, OPENAI_AUTH);
    expect(oa404.status).toBe(404);
    expect(oa404.json.error.type).toBe('invalid_request_error');
  });

  it('answers 413 to bodies over 10 MiB', async () => {
    const big = JSON.stringify({ model: 'm', messages: user('x'.repeat(10 * 1024 * 1024)) });
    const r = await post(chatUrl, big, OPENAI_AUTH);
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe('request_too_large');
    const a = await post(`${sim.url}/anthropic/v1/messages`, big, {});
    expect(a.status).toBe(413);
    expect(a.json).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });
});

describe('steering the simulated model', () => {
  it('calls the function the user names ("use the X tool"), and answers the turn before a trailing system message', async () => {
    const read = {
      type: 'function',
      function: { name: 'Read', parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } },
    };
    const messages = [
      { role: 'user', content: 'Use the Read tool to read /tmp/x/note.txt' },
      { role: 'system', content: 'Be brief.' },
    ];
    const r = await post(chatUrl, { model: 'gpt-sim', messages, tools: [weatherTool, read] }, OPENAI_AUTH);
    expect(r.json.choices[0].finish_reason).toBe('tool_calls');
    const call = r.json.choices[0].message.tool_calls[0];
    expect(call.function.name).toBe('Read');
    expect(JSON.parse(call.function.arguments)).toEqual({ file_path: '/tmp/x/note.txt' });
  });
});
