import { BATCH_STATUSES } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { BATCH_TRANSITIONS, isTerminal, sourcesOf } from './batch-transitions.js';
import { lineUsageOf, sumUsage, usageView } from './line-usage.js';

describe('batch transitions', () => {
  it('names every status, and exactly completed, failed, expired, cancelled as terminal', () => {
    expect(Object.keys(BATCH_TRANSITIONS).sort()).toEqual([...BATCH_STATUSES].sort());
    expect(BATCH_STATUSES.filter(isTerminal).sort()).toEqual(['cancelled', 'completed', 'expired', 'failed']);
  });

  it('allows the issue moves and no others', () => {
    expect(sourcesOf('in_progress')).toEqual(['validating']);
    expect(sourcesOf('finalizing')).toEqual(['in_progress']);
    expect(sourcesOf('completed')).toEqual(['finalizing']);
    expect(sourcesOf('cancelling').sort()).toEqual(['in_progress', 'validating']);
    expect(sourcesOf('cancelled')).toEqual(['cancelling']);
    expect(sourcesOf('expired').sort()).toEqual(['cancelling', 'in_progress']);
    expect(sourcesOf('failed').sort()).toEqual(['in_progress', 'validating']);
    expect(sourcesOf('validating')).toEqual([]);
  });
});

describe('batch usage (spec §2.1.2)', () => {
  it('reads each endpoint shape and sums costs as decimals, exactly', () => {
    const chat = lineUsageOf('/v1/chat/completions', {
      usage: {
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_tokens_details: { cached_tokens: 2, audio_tokens: 1 },
        completion_tokens_details: { reasoning_tokens: 3 },
        cost: 0.1,
        is_byok: false,
        cost_details: { upstream_inference_cost: 0.1 },
      },
    });
    const responses = lineUsageOf('/v1/responses', {
      usage: {
        input_tokens: 7,
        output_tokens: 4,
        total_tokens: 11,
        input_tokens_details: { cached_tokens: 1 },
        output_tokens_details: { reasoning_tokens: 2 },
        cost: 0.2,
        is_byok: true,
      },
    });
    const messages = lineUsageOf('/v1/messages', {
      usage: {
        input_tokens: 3,
        output_tokens: 2,
        cache_read_input_tokens: 1,
        cache_creation_input_tokens: 4,
        cost: 0.3,
        is_byok: false,
        server_tool_use: { web_search_requests: 1 },
      },
    });
    const embeddings = lineUsageOf('/v1/embeddings', { usage: { prompt_tokens: 6, total_tokens: 6, cost: 0.00000012, is_byok: false } });
    expect(responses).toMatchObject({
      prompt_tokens: 7,
      completion_tokens: 4,
      total_tokens: 11,
      cached_tokens: 1,
      reasoning_tokens: 2,
      is_byok: true,
    });
    expect(messages).toMatchObject({
      prompt_tokens: 3,
      completion_tokens: 2,
      total_tokens: 5,
      cached_tokens: 1,
      cache_write_tokens: 4,
      web_search_requests: 1,
    });
    const sum = sumUsage([chat, responses, messages, embeddings]);
    // 0.1 + 0.2 + 0.3 + 0.00000012 in floats is 0.6000001200000001.
    expect(sum.cost.toFixed()).toBe('0.60000012');
    const view = usageView(sum);
    expect(view).toMatchObject({
      prompt_tokens: 26,
      completion_tokens: 11,
      total_tokens: 37,
      prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 4, audio_tokens: 1 },
      completion_tokens_details: { reasoning_tokens: 5 },
      cost: 0.60000012,
      is_byok: true,
      iterations: null,
      server_tool_use: { tool_calls_executed: 0, tool_calls_requested: 0, web_search_requests: 1 },
    });
  });

  it('is all zeros, cost 0 and no server tools for no finished line', () => {
    expect(usageView(sumUsage([]))).toMatchObject({ prompt_tokens: 0, total_tokens: 0, cost: 0, is_byok: false, server_tool_use: null });
  });
});
