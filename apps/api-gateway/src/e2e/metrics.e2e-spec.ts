import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { stack } from './e2e-helpers.js';

/** The samples of a Prometheus text answer: `name{a="b",...}` -> value. */
async function scrape(name: string): Promise<Map<string, number>> {
  const url = stack.metricsUrls[name];
  if (!url) throw new Error(`no metrics URL for ${name}`);
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** The sum of every sample of `metric` whose labels include all of `labels`. */
function total(samples: Map<string, number>, metric: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const [series, value] of samples) {
    if (!series.startsWith(`${metric}{`) && series !== metric) continue;
    if (Object.entries(labels).every(([key, wanted]) => series.includes(`${key}="${wanted}"`))) sum += value;
  }
  return sum;
}

const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const model = 'sim/gpt-4o-mini';
type Usage = OpenAI.CompletionUsage & { cost: number };

describe('Prometheus metrics of each process (issue 16)', () => {
  it('count the tokens and credits the answers reported, per model and provider', async () => {
    const before = await scrape('inference');
    const plain = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Count me in the metrics' }] });
    const streamed = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Count me too, streamed' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamedUsage: Usage | undefined;
    for await (const chunk of streamed) if (chunk.usage) streamedUsage = chunk.usage as Usage;
    const usages = [plain.usage as Usage, streamedUsage!];
    const after = await scrape('inference');
    const labels = { model, provider: 'simulator-openai', byok: 'false' };
    const delta = (metric: string, extra: Record<string, string> = {}) =>
      total(after, metric, { ...labels, ...extra }) - total(before, metric, { ...labels, ...extra });
    expect(delta('inference_tokens_total', { direction: 'prompt' })).toBe(usages[0]!.prompt_tokens + usages[1]!.prompt_tokens);
    expect(delta('inference_tokens_total', { direction: 'completion' })).toBe(usages[0]!.completion_tokens + usages[1]!.completion_tokens);
    expect(delta('inference_cost_credits_total')).toBeCloseTo(usages[0]!.cost + usages[1]!.cost, 10);
    expect(delta('inference_generations_total', { status: 'succeeded' })).toBe(2);
    expect(total(after, 'inference_upstream_latency_seconds_count', { provider: 'simulator-openai' })).toBeGreaterThan(0);
    expect(total(after, 'process_cpu_seconds_total', { service: 'inference' })).toBeGreaterThan(0);
  });

  it("count the gateway's answers by route, status and key kind, streams included, and NATS latency per subject", async () => {
    const route = { route: '/v1/chat/completions', method: 'POST', status: '200', key_kind: 'standard' };
    const before = total(await scrape('api-gateway'), 'gateway_http_requests_total', route);
    await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'one' }] });
    const stream = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'two' }], stream: true });
    for await (const _chunk of stream) void _chunk;
    const after = await scrape('api-gateway');
    expect(total(after, 'gateway_http_requests_total', route) - before).toBe(2);
    expect(total(after, 'gateway_open_streams', { route: '/v1/chat/completions' })).toBe(0);
    expect(total(after, 'nats_request_duration_seconds_count', { subject: 'management.auth.resolve', outcome: 'ok' })).toBeGreaterThan(0);
    expect(total(after, 'gateway_auth_lookups_total', {})).toBeGreaterThanOrEqual(total(after, 'gateway_auth_cache_misses_total', {}));
    // Nothing of this on the public API.
    expect((await fetch(`${stack.baseUrl.replace(/\/v1$/, '')}/metrics`)).status).toBe(404);
  });

  it('count usage events in management once each', async () => {
    const counted = async () => total(await scrape('management'), 'management_usage_events_counted_total', {});
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Earlier tests' events may still be on their way: start from a settled count.
    let before = await counted();
    for (let settled = 0; settled < 3;) {
      await sleep(200);
      const now = await counted();
      settled = now === before ? settled + 1 : 0;
      before = now;
    }
    await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'bill me once' }] });
    let delta = 0;
    for (let tries = 0; tries < 50 && delta < 1; tries++) {
      await sleep(100);
      delta = (await counted()) - before;
    }
    await sleep(300);
    expect((await counted()) - before).toBe(1);
    for (const name of ['batch', 'intern-signing'])
      expect(total(await scrape(name), 'process_start_time_seconds', { service: name })).toBeGreaterThan(0);
  });
});

describe('series of batch, intern signing and endpoint health (issue 16)', () => {
  it("are on each service's /metrics from the start, endpoint health once an endpoint answered", async () => {
    await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'make the endpoint known' }] });
    const batch = await scrape('batch');
    for (const state of ['queued', 'running']) expect(batch.get(`batch_lines{state="${state}",service="batch"}`)).toBe(0);
    expect(batch.has('batch_lines_processed_total{outcome="succeeded",service="batch"}')).toBe(true);
    const signing = await scrape('intern-signing');
    for (const outcome of ['signed', 'rate_limited', 'refused', 'error'])
      expect(signing.has(`intern_signatures_total{outcome="${outcome}",service="intern-signing"}`)).toBe(true);
    const inference = await scrape('inference');
    expect(inference.get('inference_endpoint_healthy{provider="simulator-openai",upstream_model="gpt-4o-mini",service="inference"}')).toBe(
      1,
    );
    expect(
      inference.get('inference_endpoint_latency_seconds{provider="simulator-openai",upstream_model="gpt-4o-mini",service="inference"}'),
    ).toBeGreaterThan(0);
    // Bounded labels: no batch or signing series leak into other processes.
    expect([...(await scrape('api-gateway')).keys()].some((series) => series.startsWith('batch_lines'))).toBe(false);
  });
});

describe('where /metrics listens (issue 35)', () => {
  it('listens on loopback only by default (METRICS_HOST): another local address is refused on every process', async () => {
    const processes = Object.entries(stack.metricsUrls);
    expect(processes.length).toBeGreaterThanOrEqual(5);
    for (const [name, url] of processes) {
      expect((await fetch(url)).status, name).toBe(200);
      // 127.0.0.2 is this machine too: a server bound to 0.0.0.0 would answer it.
      const elsewhere = new URL(url);
      elsewhere.hostname = '127.0.0.2';
      await expect(fetch(elsewhere, { signal: AbortSignal.timeout(2_000) }), name).rejects.toThrow();
    }
  });
});

describe('request ids (issue 16)', () => {
  it('answers every request with an x-request-id, keeps a usable one from the caller, and puts it in error envelopes', async () => {
    const ok = await fetch(`${stack.baseUrl}/models`, { headers: { authorization: `Bearer ${stack.apiKey}` } });
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const mine = await fetch(`${stack.baseUrl}/models`, {
      headers: { authorization: `Bearer ${stack.apiKey}`, 'x-request-id': 'trace-me-42' },
    });
    expect(mine.headers.get('x-request-id')).toBe('trace-me-42');
    const unusable = await fetch(`${stack.baseUrl}/models`, {
      headers: { authorization: `Bearer ${stack.apiKey}`, 'x-request-id': 'x'.repeat(300) },
    });
    expect(unusable.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await fetch(`${stack.baseUrl}/models`, { headers: { authorization: 'Bearer sk-nope', 'x-request-id': 'quote-me' } });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { metadata: Record<string, unknown> } }).error.metadata.request_id).toBe('quote-me');
    const stream = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json', 'x-request-id': 'stream-id' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(stream.headers.get('x-request-id')).toBe('stream-id');
    await stream.text();
  });
});
