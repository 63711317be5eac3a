import { describe, expect, it } from 'vitest';
import { extractPresetConfig, extractSystemPrompt, PRESET_CONFIG_FIELDS } from './preset-config.js';

describe('extractPresetConfig', () => {
  it('keeps the config fields and drops messages, stream, prompt and per-request fields', () => {
    const body = {
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      prompt: 'legacy',
      temperature: 0.2,
      provider: { allow_fallbacks: false },
      reasoning: { effort: 'high' },
      session_id: 'abc',
      user: 'end-user',
      prediction: { type: 'content', content: 'x' },
      stream_options: { include_usage: true },
      trace: { trace_id: 't' },
      not_a_field: 1,
    };
    expect(extractPresetConfig(body)).toEqual({
      model: 'sim/gpt-4o-mini',
      temperature: 0.2,
      provider: { allow_fallbacks: false },
      reasoning: { effort: 'high' },
    });
  });

  it('keeps every listed field, falsy values included, and drops nulls', () => {
    const body = Object.fromEntries(PRESET_CONFIG_FIELDS.map((field, index) => [field, index % 2 === 0 ? 0 : false]));
    expect(extractPresetConfig(body)).toEqual(body);
    expect(extractPresetConfig({ temperature: null, top_p: 0 })).toEqual({ top_p: 0 });
  });

  it('is empty for a body with messages only', () => {
    expect(extractPresetConfig({ messages: [{ role: 'user', content: 'hi' }] })).toEqual({});
  });
});

describe('extractSystemPrompt', () => {
  it('takes the system message', () => {
    expect(
      extractSystemPrompt([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ]),
    ).toBe('Be brief.');
  });

  it('joins several system messages and the text parts of multi-part content', () => {
    const messages = [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Be ' },
          { type: 'image_url', image_url: { url: 'x' } },
          { type: 'text', text: 'brief.' },
        ],
      },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'Answer in French.' },
    ];
    expect(extractSystemPrompt(messages)).toBe('Be brief.\n\nAnswer in French.');
  });

  it('is null without a system message, or with an empty one', () => {
    expect(
      extractSystemPrompt([
        { role: 'user', content: 'hi' },
        { role: 'developer', content: 'not system' },
      ]),
    ).toBeNull();
    expect(extractSystemPrompt([{ role: 'system', content: '' }])).toBeNull();
    expect(extractSystemPrompt(undefined)).toBeNull();
  });
});
