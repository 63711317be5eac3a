import { describe, expect, it } from 'vitest';
import { createdBetween, mayBeInFlight } from './generation-reader.service.js';
import { type GenerationRow, toGenerationView } from './generation-view.js';

const row: GenerationRow = {
  price_version: 3,
  id: 'gen-abc-0123',
  workspace_id: '00000000-0000-4000-8000-000000000001',
  key_hash: 'a'.repeat(64),
  model: 'sim/gpt-4o-mini',
  provider: 'simulator-openai',
  upstream_model: 'gpt-4o-mini',
  status: 'succeeded',
  prompt_tokens: 12,
  completion_tokens: 34,
  cached_tokens: 5,
  reasoning_tokens: 6,
  cost: '0.000022200000',
  upstream_cost: '0.000022200000',
  is_byok: false,
  latency_ms: 87,
  session_id: null,
  request_id: 'req-1',
  streamed: false,
  finish_reason: 'tool_calls',
  native_finish_reason: 'tool_use',
  upstream_id: 'msg_01',
  generation_time_ms: 80,
  cancelled: false,
  service_tier: 'default',
  endpoints_tried: ['simulator-down/gpt-4o-mini', 'simulator-openai/gpt-4o-mini'],
  usage_details: { completion_image_tokens: 3 },
  created_at: new Date('2026-11-28T10:00:00.000Z'),
  cache_discount: '-0.000000525000',
  response_cache_source_id: 'gen-source-1',
  preset_id: '6f1c2a4e-1b2c-4d3e-8f4a-1234567890ab',
  router: 'openrouter/auto',
  num_media_prompt: 2,
  num_input_audio_prompt: 1,
  moderation_latency_ms: 41,
  num_search_results: 5,
  num_fetches: 1,
  web_search_engine: 'searxng',
  http_referer: 'https://app.example/',
  user_agent: 'OpenAI/JS 5.0',
  origin: 'https://app.example',
  attempt_statuses: null,
  attempt_latencies_ms: null,
  external_user: 'end-user-7',
};

describe('toGenerationView', () => {
  it("maps the row's money exactly, its counts as native counts, and every attempt in order", () => {
    const view = toGenerationView(row, 'completions');
    expect(view).toMatchObject({
      price_version: 3,
      total_cost: 0.0000222,
      usage: 0.0000222,
      upstream_inference_cost: 0.0000222,
      tokens_prompt: 12,
      native_tokens_completion: 34,
      native_tokens_cached: 5,
      native_tokens_reasoning: 6,
      native_tokens_completion_images: 3,
      latency: 87,
      created_at: '2026-11-28T10:00:00.000Z',
      api_type: 'completions',
      provider_name: 'simulator-openai',
      request_id: 'req-1',
      streamed: false,
      finish_reason: 'tool_calls',
      native_finish_reason: 'tool_use',
      upstream_id: 'msg_01',
      generation_time: 80,
      cancelled: false,
      service_tier: 'default',
    });
    expect(view.provider_responses).toEqual([
      { provider_name: 'simulator-down', model_permaslug: 'gpt-4o-mini', status: null },
      { provider_name: 'simulator-openai', model_permaslug: 'gpt-4o-mini', status: 200, is_byok: false },
    ]);
  });

  it('answers each attempt with its status and latency where the row records them (null: no HTTP status)', () => {
    const tried = ['simulator-down/gpt-4o-mini', 'simulator-slow/gpt-4o-mini', 'simulator-openai/gpt-4o-mini'];
    const view = toGenerationView(
      { ...row, endpoints_tried: tried, attempt_statuses: [503, 0, 200], attempt_latencies_ms: [12, 900, 41] },
      null,
    );
    expect(view.provider_responses).toEqual([
      { provider_name: 'simulator-down', model_permaslug: 'gpt-4o-mini', status: 503, latency: 12 },
      { provider_name: 'simulator-slow', model_permaslug: 'gpt-4o-mini', status: null, latency: 900 },
      { provider_name: 'simulator-openai', model_permaslug: 'gpt-4o-mini', status: 200, latency: 41, is_byok: false },
    ]);
    // Lists that do not match the endpoints (never written so) are not paired with them.
    const odd = toGenerationView({ ...row, endpoints_tried: tried, attempt_statuses: [200], attempt_latencies_ms: [41] }, null);
    expect(odd.provider_responses!.map((response) => response.status)).toEqual([null, null, 200]);
  });

  it('answers the request details the row records, and null where an older row has none', () => {
    expect(toGenerationView(row, 'completions')).toMatchObject({
      cache_discount: -0.000000525,
      response_cache_source_id: 'gen-source-1',
      preset_id: '6f1c2a4e-1b2c-4d3e-8f4a-1234567890ab',
      router: 'openrouter/auto',
      num_media_prompt: 2,
      num_input_audio_prompt: 1,
      moderation_latency: 41,
      num_search_results: 5,
      num_fetches: 1,
      web_search_engine: 'searxng',
      http_referer: 'https://app.example/',
      user_agent: 'OpenAI/JS 5.0',
      origin: 'https://app.example',
      external_user: 'end-user-7',
    });
    const older = toGenerationView(
      {
        ...row,
        cache_discount: null,
        response_cache_source_id: null,
        preset_id: null,
        router: null,
        num_media_prompt: null,
        num_input_audio_prompt: null,
        moderation_latency_ms: null,
        num_search_results: null,
        num_fetches: null,
        web_search_engine: null,
        http_referer: null,
        user_agent: null,
        origin: null,
        external_user: null,
      },
      'completions',
    );
    expect(older).toMatchObject({ cache_discount: null, preset_id: null, router: null, num_media_prompt: null, moderation_latency: null });
    expect(older).toMatchObject({
      num_search_results: null,
      num_fetches: null,
      web_search_engine: null,
      http_referer: null,
      user_agent: null,
      external_user: null,
    });
    expect(older.origin).toBe('');
  });

  it('gives a failed generation no 200, and a row without attempts its answering endpoint', () => {
    const view = toGenerationView({ ...row, status: 'failed', endpoints_tried: [] }, null);
    expect(view.provider_responses).toEqual([
      { provider_name: 'simulator-openai', model_permaslug: 'gpt-4o-mini', status: null, is_byok: false },
    ]);
  });
});

describe('mayBeInFlight', () => {
  const now = Date.parse('2026-11-28T10:00:00.000Z');
  const idAt = (ms: number) => `gen-${ms.toString(36)}-0123456789abcdef0123`;

  it('waits for ids minted in the last minutes, not for old, future or foreign ones', () => {
    expect(mayBeInFlight(idAt(now - 200), now)).toBe(true);
    // A request's slot (`gen-<nonce>-<slot>`, the nonce starting with the signing time).
    expect(mayBeInFlight(`${idAt(now - 200)}-3`, now)).toBe(true);
    expect(mayBeInFlight(idAt(now - 10 * 60_000), now)).toBe(true);
    expect(mayBeInFlight(idAt(now - 16 * 60_000), now)).toBe(false);
    expect(mayBeInFlight(idAt(now + 60_000), now)).toBe(false);
    expect(mayBeInFlight('gen-unknown', now)).toBe(false);
    expect(mayBeInFlight('resp_0123', now)).toBe(false);
    expect(mayBeInFlight('gen-batch-835d5e93c3eda96ed0d97d7ac7efccfa', now)).toBe(false);
  });

  it('reads a time window from gateway ids only: a provider-run batch line is looked up in every partition', () => {
    expect(createdBetween(idAt(now))).toEqual(['2026-11-28T09:59:00.000Z', '2026-11-30T10:00:00.000Z']);
    expect(createdBetween('gen-batch-835d5e93c3eda96ed0d97d7ac7efccfa')).toEqual([null, null]);
  });
});
