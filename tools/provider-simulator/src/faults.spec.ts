import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultCounterSize, faultStatus, parseDirectives, resetFaultCounters } from './faults.ts';
import { startSimulator, type RunningSimulator } from './index.ts';
import { ANTHROPIC_AUTH, OPENAI_AUTH, parseSse, post, readStream } from './spec-helpers.ts';

let sim: RunningSimulator;
let chatUrl: string;
let msgUrl: string;
beforeAll(async () => {
  sim = await startSimulator();
  chatUrl = `${sim.url}/openai/v1/chat/completions`;
  msgUrl = `${sim.url}/anthropic/v1/messages`;
});
afterAll(() => sim.close());

const chat = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'Hello, world!' }],
  ...extra,
});
const msg = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 256,
  messages: [{ role: 'user', content: 'Hello, world!' }],
  ...extra,
});

describe('status', () => {
  const openaiTypes: Record<number, [string, string | null]> = {
    400: ['invalid_request_error', 'invalid_value'],
    401: ['invalid_request_error', 'invalid_api_key'],
    403: ['request_forbidden', 'unsupported_country_region_territory'],
    404: ['invalid_request_error', 'model_not_found'],
    413: ['invalid_request_error', 'request_too_large'],
    429: ['requests', 'rate_limit_exceeded'],
    500: ['server_error', null],
    502: ['server_error', null],
    503: ['server_error', null],
    529: ['server_error', null],
  };
  const anthropicTypes: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    500: 'api_error',
    502: 'api_error',
    503: 'overloaded_error',
    529: 'overloaded_error',
  };

  it('answers each status with the OpenAI error body', async () => {
    for (const [status, [type, code]] of Object.entries(openaiTypes)) {
      const r = await post(chatUrl, chat(`sim-gpt;status=${status}`), OPENAI_AUTH);
      expect(r.status).toBe(Number(status));
      expect(r.json.error).toMatchObject({ type, code, param: null });
      expect(typeof r.json.error.message).toBe('string');
      expect(r.headers.get('retry-after')).toBe(status === '429' ? '1' : null);
    }
  });

  it('answers each status with the Anthropic error body', async () => {
    for (const [status, type] of Object.entries(anthropicTypes)) {
      const r = await post(msgUrl, msg('claude-sim', {}), { ...ANTHROPIC_AUTH, 'x-sim-status': status });
      expect(r.status).toBe(Number(status));
      expect(r.json).toEqual({ type: 'error', error: { type, message: r.json.error.message } });
    }
  });

  it('applies to embeddings and echoes the base model in errors', async () => {
    const r = await post(`${sim.url}/openai/v1/embeddings`, { model: 'emb;status=404', input: 'x' }, OPENAI_AUTH);
    expect(r.status).toBe(404);
    expect(r.json.error.message).toContain('`emb`');
  });
});

describe('fail-times', () => {
  it('fails the first N requests per fault key, then succeeds', async () => {
    const model = 'sim-gpt;fail-times=2;status=503;fault-key=ft-openai';
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(chatUrl, chat(model), OPENAI_AUTH)).status);
    expect(statuses).toEqual([503, 503, 200, 200]);
  });

  it('defaults to 500, works from headers and keys are independent', async () => {
    const h = (key: string) => ({ ...ANTHROPIC_AUTH, 'x-sim-fail-times': '1', 'x-sim-fault-key': key });
    expect((await post(msgUrl, msg('claude-sim'), h('ft-a'))).status).toBe(500);
    expect((await post(msgUrl, msg('claude-sim'), h('ft-b'))).status).toBe(500);
    expect((await post(msgUrl, msg('claude-sim'), h('ft-a'))).status).toBe(200);
    await post(`${sim.url}/sim/reset`, {});
    expect((await post(msgUrl, msg('claude-sim'), h('ft-a'))).status).toBe(500);
  });

  it('keeps the counter map bounded', () => {
    resetFaultCounters();
    const d = parseDirectives('m;fail-times=1', {}).directives;
    for (let i = 0; i < 10_050; i++) faultStatus({ ...d, faultKey: `k${i}` }, 'm');
    expect(faultCounterSize()).toBe(10_000);
    expect(faultStatus({ ...d, faultKey: 'k10049' }, 'm')).toBeUndefined();
    expect(faultStatus({ ...d, faultKey: 'k0' }, 'm')).toBe(500);
  });
});

describe('latency and chunk-delay', () => {
  it('delays the response head', async () => {
    const t0 = performance.now();
    const r = await post(chatUrl, chat('sim-gpt;latency=150'), OPENAI_AUTH);
    expect(r.status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    expect(r.json.model).toBe('sim-gpt');
  });

  it('spaces stream frames', async () => {
    const t0 = performance.now();
    const r = await readStream(msgUrl, msg('claude-sim', { stream: true }), { ...ANTHROPIC_AUTH, 'x-sim-chunk-delay': '10' });
    const frames = parseSse(r.text).length;
    expect(r.cut).toBe(false);
    expect(frames).toBeGreaterThan(10);
    expect(performance.now() - t0).toBeGreaterThanOrEqual((frames - 1) * 10 - 5);
  });
});

describe('empty-stream', () => {
  it('answers a 200 stream that holds only [DONE]', async () => {
    const r = await readStream(chatUrl, chat('sim-gpt;empty-stream=1', { stream: true }), OPENAI_AUTH);
    expect(r.cut).toBe(false);
    expect(r.text).toBe('data: [DONE]\n\n');
  });
});

describe('cut', () => {
  it('cuts an OpenAI stream after N content chunks without [DONE]', async () => {
    const r = await readStream(chatUrl, chat('sim-gpt;cut=2', { stream: true }), OPENAI_AUTH);
    expect(r.status).toBe(200);
    expect(r.cut).toBe(true);
    expect(r.text).not.toContain('[DONE]');
    const chunks = parseSse(r.text).map((e) => JSON.parse(e.data));
    expect(chunks).toHaveLength(3);
    expect(chunks.filter((c) => c.choices[0].delta.content).length).toBe(2);
  });

  it('cuts an Anthropic stream without message_stop, also with chunk-delay', async () => {
    const r = await readStream(msgUrl, msg('claude-sim;cut=3;chunk-delay=5', { stream: true }), ANTHROPIC_AUTH);
    expect(r.cut).toBe(true);
    const events = parseSse(r.text);
    expect(events.filter((e) => e.event === 'content_block_delta')).toHaveLength(3);
    expect(events.some((e) => e.event === 'message_stop' || e.event === 'message_delta')).toBe(false);
  });

  it('cuts a long reply even when N exceeds the content chunks', async () => {
    const r = await readStream(chatUrl, chat('sim-gpt;cut=999', { stream: true }), OPENAI_AUTH);
    expect(r.cut).toBe(true);
    expect(r.text).not.toContain('finish_reason":"stop');
  });

  it('drops the connection before the body when not streaming', async () => {
    await expect(post(chatUrl, chat('sim-gpt;cut=1'), OPENAI_AUTH)).rejects.toThrow();
    await expect(post(msgUrl, msg('claude-sim'), { ...ANTHROPIC_AUTH, 'x-sim-cut': '0' })).rejects.toThrow();
  });
});

describe('stream-error', () => {
  it('sends a provider error frame mid-stream', async () => {
    const oa = await readStream(chatUrl, chat('sim-gpt;stream-error=1', { stream: true }), OPENAI_AUTH);
    const last = JSON.parse(parseSse(oa.text).at(-1)!.data);
    expect(last.error.type).toBe('server_error');
    expect(oa.text).not.toContain('[DONE]');
    const an = await readStream(msgUrl, msg('claude-sim;stream-error=1', { stream: true }), ANTHROPIC_AUTH);
    const ev = parseSse(an.text).at(-1)!;
    expect(ev.event).toBe('error');
    expect(JSON.parse(ev.data)).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });
});

describe('context', () => {
  it('rejects prompts over the context window like each provider', async () => {
    const oa = await post(chatUrl, chat('sim-gpt;context=5'), OPENAI_AUTH);
    expect(oa.status).toBe(400);
    expect(oa.json.error).toEqual({
      message:
        "This model's maximum context length is 5 tokens. However, your messages resulted in 10 tokens. Please reduce the length of the messages.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    });
    expect((await post(chatUrl, chat('sim-gpt;context=10'), OPENAI_AUTH)).status).toBe(200);
    const an = await post(msgUrl, msg('claude-sim'), { ...ANTHROPIC_AUTH, 'x-sim-context': '9' });
    expect(an.status).toBe(400);
    expect(an.json).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 10 tokens > 9 maximum' },
    });
  });
});

describe('reasoning, cached and reply-tokens', () => {
  it('reports reasoning tokens and a reasoning string (OpenAI)', async () => {
    const r = await post(chatUrl, chat('sim-gpt;reasoning=40'), OPENAI_AUTH);
    expect(r.json.usage.completion_tokens_details.reasoning_tokens).toBe(40);
    expect(r.json.usage.completion_tokens).toBe(64);
    expect(r.json.choices[0].message.reasoning).toBe('Thinking about how to answer: Hello, world!');
  });

  it('enables thinking (Anthropic)', async () => {
    const r = await post(msgUrl, msg('claude-sim;reasoning=40'), ANTHROPIC_AUTH);
    expect(r.json.content[0].type).toBe('thinking');
    expect(r.json.usage.output_tokens).toBe(64);
  });

  it('reports cached prompt tokens', async () => {
    const oa = await post(chatUrl, chat('sim-gpt;cached=6'), OPENAI_AUTH);
    expect(oa.json.usage.prompt_tokens).toBe(10);
    expect(oa.json.usage.prompt_tokens_details.cached_tokens).toBe(6);
    const an = await post(msgUrl, msg('claude-sim;cached=6'), ANTHROPIC_AUTH);
    expect(an.json.usage).toEqual({
      input_tokens: 4,
      output_tokens: 24,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 6,
      service_tier: 'standard',
    });
  });

  it('sets the reply length', async () => {
    const r = await post(chatUrl, chat('sim-gpt;reply-tokens=200'), OPENAI_AUTH);
    expect(r.json.usage.completion_tokens).toBe(200);
  });
});
