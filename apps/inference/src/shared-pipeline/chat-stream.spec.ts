import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../providers/provider-adapter.js';
import {
  beforeFirstByte,
  midStreamFailure,
  streamErrorFailure,
  transportFailure,
  truncatedStreamFailure,
} from '../upstream/upstream-failure.js';
import { toChunkView, usageChunkView } from './chat-chunk.mapper.js';
import { StreamTally } from './stream-tally.js';

const chunk = (delta: Record<string, unknown>, finish: string | null = null): Extract<StreamEvent, { type: 'chunk' }> => ({
  type: 'chunk',
  choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: finish }],
});

describe('beforeFirstByte', () => {
  it('lets a provider-side failure that came before any event go to the next endpoint', () => {
    expect(beforeFirstByte(truncatedStreamFailure('p')).retryable).toBe(true);
    expect(beforeFirstByte(midStreamFailure(transportFailure('p', 'timeout', 'stalled'))).retryable).toBe(true);
    expect(beforeFirstByte(streamErrorFailure('p', { type: 'overloaded_error' })).retryable).toBe(true);
  });

  it('keeps request errors and aborts final', () => {
    expect(beforeFirstByte(streamErrorFailure('p', { code: 'context_length_exceeded', message: 'too long' })).retryable).toBe(false);
    expect(beforeFirstByte(transportFailure('p', 'aborted', 'call was cancelled')).retryable).toBe(false);
  });
});

describe('chunk views', () => {
  const head = { id: 'gen-1', created: 1_700_000_000, model: 'sim/gpt-4o-mini', provider: 'Simulator' };

  it('gives each provider chunk the generation id, the public model and the provider, with logprobs null when absent', () => {
    const view = toChunkView(head, { systemFingerprint: 'fp', serviceTier: 'default' }, chunk({ content: 'Hi' }, 'stop'));
    expect(view).toEqual({
      id: 'gen-1',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'sim/gpt-4o-mini',
      provider: 'Simulator',
      system_fingerprint: 'fp',
      service_tier: 'default',
      choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: 'stop', native_finish_reason: 'stop', logprobs: null }],
    });
  });

  it('leaves system_fingerprint out when the provider sent none', () => {
    expect(toChunkView(head, { systemFingerprint: null, serviceTier: null }, chunk({ content: 'Hi' }))).not.toHaveProperty(
      'system_fingerprint',
    );
  });

  it('ends with a usage chunk without choices', () => {
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, cost: 0, is_byok: false } as never;
    expect(usageChunkView(head, { systemFingerprint: null, serviceTier: null }, usage)).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      usage,
    });
  });
});

describe('StreamTally', () => {
  const messages = [{ role: 'user', content: 'x'.repeat(40) }];

  it("uses the provider's counts when it sent them", () => {
    const tally = new StreamTally();
    tally.add(chunk({ content: 'Hello' }));
    tally.add({ type: 'usage', usage: { promptTokens: 9, completionTokens: 1, cachedTokens: 0, reasoningTokens: 0, estimated: false } });
    expect(tally.usage({ messages })).toMatchObject({ promptTokens: 9, completionTokens: 1, estimated: false });
  });

  it('estimates from what was generated (content, reasoning, tool-call fragments) when the provider sent nothing', () => {
    const tally = new StreamTally();
    tally.add(chunk({ role: 'assistant', content: '' }));
    tally.add(chunk({ content: 'x'.repeat(20) }));
    tally.add(chunk({ reasoning: 'y'.repeat(8) }));
    tally.add(chunk({ tool_calls: [{ index: 0, function: { name: 'get', arguments: '{"a":1}' } }] }));
    // 20 + 8 + 3 + 7 = 38 characters -> 10 tokens; prompt 40 characters -> 10 tokens + 4 for the message.
    expect(tally.usage({ messages })).toEqual({
      promptTokens: 14,
      completionTokens: 10,
      cachedTokens: 0,
      reasoningTokens: 0,
      estimated: true,
      estimatedFromCharacters: 38,
    });
  });

  it("never bills an estimate above the answer's maximum (max_tokens times n), and says so", () => {
    const tally = new StreamTally();
    tally.add(chunk({ content: 'x'.repeat(644) }));
    // 644 characters -> 161 tokens, above max_tokens 120: billed 120.
    expect(tally.usage({ messages, max_tokens: 120 })).toMatchObject({
      completionTokens: 120,
      estimatedFromCharacters: 644,
      estimateCappedAt: 120,
    });
    expect(tally.usage({ messages, max_completion_tokens: 50, max_tokens: 500, n: 2 })).toMatchObject({
      completionTokens: 100,
      estimateCappedAt: 100,
    });
    expect(tally.usage({ messages, max_tokens: 500 })).toMatchObject({ completionTokens: 161, estimatedFromCharacters: 644 });
    expect(tally.usage({ messages, max_tokens: 500 }).estimateCappedAt).toBeUndefined();
  });
});
