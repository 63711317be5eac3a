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
    expect(problems({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }] }, { role: 'assistant', content: null }] })).toEqual([]);
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
  ])('refuses an out-of-bounds %s', (field, override) => {
    expect(problems({ ...valid, ...override })).toEqual([field]);
  });
});
