import type { PresetResolveReply } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { applyPreset, presetReferenceOf } from './preset-reference.js';

const preset: PresetResolveReply = {
  slug: 'support',
  presetId: 'p',
  versionId: 'v',
  version: 3,
  config: { model: 'sim/gpt-4o-mini', temperature: 0.2, max_tokens: 50, provider: { sort: 'price' } },
  systemPrompt: 'You are terse.',
};
const messages = [{ role: 'user', content: 'hi' }];

describe('presetReferenceOf', () => {
  it.each([
    [{ model: '@preset/support' }, { slug: 'support', model: undefined }],
    [{ model: 'sim/other@preset/support' }, { slug: 'support', model: 'sim/other' }],
    [
      { model: 'sim/other', preset: 'support' },
      { slug: 'support', model: 'sim/other' },
    ],
    [
      { model: 'sim/other', preset: '@preset/support' },
      { slug: 'support', model: 'sim/other' },
    ],
  ])('reads %j', (body, expected) => {
    expect(presetReferenceOf(body)).toEqual(expected);
  });

  it('is null without a preset, and refuses a slug that is not URL-safe', () => {
    expect(presetReferenceOf({ model: 'sim/gpt-4o-mini' })).toBeNull();
    expect(() => presetReferenceOf({ model: '@preset/Not Safe' })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => presetReferenceOf({ model: 'x', preset: 7 })).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('applyPreset', () => {
  it('applies the config under the request fields and prepends the system prompt', () => {
    const body = { model: '@preset/support', messages, temperature: 0.9 };
    expect(applyPreset(body, presetReferenceOf(body)!, preset)).toEqual({
      model: 'sim/gpt-4o-mini',
      temperature: 0.9,
      max_tokens: 50,
      provider: { sort: 'price' },
      messages: [{ role: 'system', content: 'You are terse.' }, ...messages],
    });
  });

  it('keeps the model named beside the preset and drops the preset field', () => {
    const body = { model: 'sim/other', preset: 'support', messages };
    const applied = applyPreset(body, presetReferenceOf(body)!, { ...preset, systemPrompt: null });
    expect(applied.model).toBe('sim/other');
    expect(applied).not.toHaveProperty('preset');
    expect(applied.messages).toEqual(messages);
  });

  it('keeps the preset\'s value where the request sends null (null means "not set")', () => {
    const body = { model: '@preset/support', messages, temperature: null, max_tokens: null, top_p: null };
    const applied = applyPreset(body, presetReferenceOf(body)!, preset);
    expect(applied.temperature).toBe(0.2);
    expect(applied.max_tokens).toBe(50);
    expect(applied).not.toHaveProperty('top_p');
  });

  it('refuses a preset without a model when the request names none', () => {
    const body = { model: '@preset/support', messages };
    expect(() => applyPreset(body, presetReferenceOf(body)!, { ...preset, config: {} })).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('stored-prompt variables (Responses prompt.variables)', () => {
  it('fills {{name}} placeholders in the preset system prompt and leaves unknown ones as written', () => {
    const preset = {
      slug: 'support',
      version: 1,
      systemPrompt: 'Help {{ customer }} with {{topic}}; {{unknown}} stays.',
      config: { model: 'sim/gpt-4o-mini' },
    };
    const body = applyPreset({ preset: 'support', messages: [{ role: 'user', content: 'Hi' }] }, { slug: 'support' }, preset as never, {
      customer: 'Ada',
      topic: 'billing',
    });
    expect((body.messages as unknown[])[0]).toEqual({ role: 'system', content: 'Help Ada with billing; {{unknown}} stays.' });
  });
});
