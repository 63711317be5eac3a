import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { ChatCompletionRequestDto } from './chat-completion-request.dto.js';

const valid = { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
const problems = (body: object) =>
  validateSync(plainToInstance(ChatCompletionRequestDto, body), { forbidUnknownValues: true }).map((error) => error.property);

describe('chat-completions body bounds (spec §8)', () => {
  it('accepts a minimal body and unmodelled provider fields', () => {
    expect(problems({ ...valid, prediction: { type: 'content', content: 'x' }, modalities: ['text'] })).toEqual([]);
  });

  it('accepts multi-part content and null content', () => {
    expect(
      problems({
        model: 'm',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'a' }] },
          { role: 'assistant', content: null },
        ],
      }),
    ).toEqual([]);
  });

  it.each([
    ['temperature', { temperature: 2.01 }],
    ['top_p', { top_p: 1.5 }],
    ['frequency_penalty', { frequency_penalty: 3 }],
    ['presence_penalty', { presence_penalty: -3 }],
    ['top_logprobs', { top_logprobs: 21 }],
    ['stop', { stop: ['1', '2', '3', '4', '5'] }],
    ['metadata', { metadata: { ok: 1 } }],
    ['session_id', { session_id: 'x'.repeat(257) }],
    ['messages', { messages: [] }],
    ['max_tokens', { max_tokens: 0 }],
    ['top_p', { top_p: -0.1 }],
    ['top_k', { top_k: 1.5 }],
    ['min_p', { min_p: 1.1 }],
    ['top_a', { top_a: -1 }],
    ['repetition_penalty', { repetition_penalty: 2.5 }],
    ['top_logprobs', { top_logprobs: -1 }],
    ['metadata', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }],
    ['metadata', { metadata: { ['k'.repeat(65)]: 'v' } }],
    ['metadata', { metadata: { 'a[b]': 'v' } }],
    ['metadata', { metadata: { k: 'v'.repeat(513) } }],
    ['reasoning_effort', { reasoning_effort: 'extreme' }],
    ['reasoning_effort', { reasoning_effort: 'high', reasoning: { effort: 'low' } }],
    ['reasoning', { reasoning: { effort: 'extreme' } }],
    ['reasoning', { reasoning: 'high' }],
    ['service_tier', { service_tier: 'turbo' }],
    ['modalities', { modalities: ['text', 'video'] }],
    ['logit_bias', { logit_bias: { '50256': -101 } }],
    ['tool_choice', { tool_choice: 'sometimes' }],
    ['response_format', { response_format: { type: 'yaml' } }],
    ['prediction', { prediction: { type: 'diff', content: 'x' } }],
    ['stream_options', { stream_options: { include_usage: 'yes' } }],
    ['tools', { tools: [{ function: { name: 'f' } }] }],
    ['plugins', { plugins: [{ enabled: true }] }],
    ['plugins', { plugins: [{ id: 'web' }, { id: 'telepathy' }] }],
    ['plugins', { plugins: [{ id: 'fusion' }] }],
    ['models', { models: ['a', 1] }],
    ['preset', { preset: 'Not A Slug' }],
  ])('refuses an out-of-bounds %s', (field, override) => {
    expect(problems({ ...valid, ...override })).toEqual([field]);
  });

  it.each([
    [
      'the edges of every range',
      {
        temperature: 2,
        top_p: 0,
        frequency_penalty: -2,
        presence_penalty: 2,
        top_logprobs: 20,
        top_k: 0,
        min_p: 1,
        top_a: 0,
        repetition_penalty: 2,
      },
    ],
    [
      'four stop sequences and 16 metadata pairs',
      { stop: ['a', 'b', 'c', 'd'], metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'.repeat(512)])) },
    ],
    ['agreeing reasoning efforts', { reasoning_effort: 'xhigh', reasoning: { effort: 'xhigh', summary: 'auto' } }],
    ['a reasoning effort with a null reasoning.effort', { reasoning_effort: 'low', reasoning: { effort: null } }],
    ['null for optional fields', { temperature: null, service_tier: null, reasoning_effort: null, stop: null }],
    ['every service tier', { service_tier: 'ultrafast' }],
    [
      'a named tool choice and tools',
      { tool_choice: { type: 'function', function: { name: 'f' } }, tools: [{ type: 'function', function: { name: 'f' } }] },
    ],
    ['a json_schema response format with its schema', { response_format: { type: 'json_schema', json_schema: { name: 's', schema: {} } } }],
    ['a preset instead of a model', { model: undefined, preset: 'my-preset' }],
  ])('accepts %s', (_name, override) => {
    expect(problems({ ...valid, ...override })).toEqual([]);
  });

  it('still requires a model when no preset is named', () => {
    expect(problems({ messages: valid.messages })).toEqual(['model']);
  });
});

describe('plugins at the edge', () => {
  it('names the first unknown or refused plugin id', async () => {
    const { validate } = await import('class-validator');
    const { plainToInstance } = await import('class-transformer');
    const { ChatCompletionRequestDto } = await import('./chat-completion-request.dto.js');
    const messagesOf = async (plugins: unknown) =>
      (
        await validate(plainToInstance(ChatCompletionRequestDto, { model: 'm', messages: [{ role: 'user', content: 'Hi' }], plugins }))
      ).flatMap((error) => Object.values(error.constraints ?? {}));
    expect(await messagesOf([{ id: 'web' }, { id: 'telepathy' }])).toEqual([
      expect.stringContaining('plugins[1]: unknown plugin "telepathy"'),
    ]);
    expect(await messagesOf([{ id: 'phaser' }])).toEqual([expect.stringContaining('plugins[0]: the phaser plugin is not supported here')]);
    expect(await messagesOf([{ id: 'web' }, { id: 'alignment', rules: ['x'] }])).toEqual([]);
  });
});
