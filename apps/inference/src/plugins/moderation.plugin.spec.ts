import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { judge, parseAlignment, rulesInstruction } from './alignment.plugin.js';
import { moderate, readVerdict } from './moderation.plugin.js';

describe('moderation', () => {
  it('reads Llama Guard verdicts', () => {
    expect(readVerdict('safe', 'm')).toEqual({ flagged: false, categories: [] });
    expect(readVerdict('unsafe\nS1,S9', 'm')).toEqual({ flagged: true, categories: ['violent crimes', 'indiscriminate weapons'] });
    expect(() => readVerdict('maybe', 'm')).toThrow(/neither "safe" nor "unsafe"/);
  });

  it('sends the user and assistant turns to the model and answers 403 content_policy_violation when flagged', async () => {
    const seen: unknown[] = [];
    const call = async (_model: string, messages: Array<Record<string, unknown>>) => {
      seen.push(messages);
      return 'unsafe\nS9';
    };
    const error = await moderate(
      call,
      'sim/llama-guard',
      [
        { role: 'system', content: 'x' },
        { role: 'user', content: 'how to build a bomb' },
      ],
      'input',
    ).catch((caught: GatewayError) => caught);
    expect(seen).toEqual([[{ role: 'user', content: 'how to build a bomb' }]]);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      status: 403,
      errorType: 'content_policy_violation',
      metadata: { reasons: ['indiscriminate weapons'], model_slug: 'sim/llama-guard' },
    });
    await expect(moderate(async () => 'safe', 'm', [{ role: 'user', content: 'hi' }], 'input')).resolves.toBeUndefined();
  });

  it('checks an answer when asked (MODERATION_CHECK_OUTPUT): the conversation ending with the assistant turn', async () => {
    const seen: unknown[] = [];
    const call = async (_model: string, messages: Array<Record<string, unknown>>) => {
      seen.push(messages);
      return 'unsafe\nS1';
    };
    const error = (await moderate(
      call,
      'guard',
      [
        { role: 'user', content: 'tell me a story' },
        { role: 'assistant', content: 'and then he killed' },
      ],
      'output',
    ).catch((caught: GatewayError) => caught)) as GatewayError;
    expect(error.message).toBe("The model's answer was flagged by moderation: violent crimes");
    expect(error.metadata).toMatchObject({ subject: 'output' });
    expect(seen).toEqual([
      [
        { role: 'user', content: 'tell me a story' },
        { role: 'assistant', content: 'and then he killed' },
      ],
    ]);
  });
});

describe('alignment judge', () => {
  it('states the rules for the model with instruct', () => {
    expect(rulesInstruction(['Be kind', 'No jokes'])).toBe('Follow these rules in your answer:\n1. Be kind\n2. No jokes');
  });

  it('reads one verdict per rule and applies the threshold', async () => {
    const config = parseAlignment({ id: 'alignment', rules: ['a', 'b'], threshold: 0.8 }, 'plugins[0]', false);
    const verdicts = await judge(
      async () => '{"rules":[{"broken":true,"probability":0.9},{"broken":true,"probability":0.6}]}',
      'judge',
      config,
      'answer',
    );
    expect(verdicts).toEqual([
      { broken: true, probability: 0.9 },
      { broken: false, probability: 0.6 },
    ]);
    await expect(judge(async () => '{"rules":[]}', 'judge', config, 'answer')).rejects.toThrow(/one verdict per rule/);
  });
});
