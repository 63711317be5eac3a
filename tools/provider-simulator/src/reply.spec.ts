import { describe, expect, it } from 'vitest';
import { parseDirectives } from './faults.ts';
import { buildReply, buildToolResultReply, shapeReply, toolInput, valueFromSchema } from './reply.ts';
import { cutIndex, dataFrame } from './sse.ts';
import { countTokens, groupPieces, splitPieces } from './tokens.ts';

describe('tokenizer', () => {
  it('counts words and punctuation as one token each', () => {
    expect(countTokens('Hello, world!')).toBe(4);
    expect(countTokens('  spaced   out  ')).toBe(2);
    expect(countTokens('')).toBe(0);
    expect(countTokens('{"a":1}')).toBe(7);
    expect(countTokens('héllo wörld_2')).toBe(2);
  });

  it('splits text into pieces that join back exactly, one token each', () => {
    const text = ' Hello,  world! trailing  ';
    const pieces = splitPieces(text);
    expect(pieces.join('')).toBe(text);
    expect(pieces).toEqual([' Hello', ',', '  world', '!', ' trailing  ']);
    expect(pieces.length).toBe(countTokens(text));
    expect(groupPieces(pieces, 2)).toEqual([' Hello,', '  world!', ' trailing  ']);
  });
});

describe('reply text', () => {
  it('is deterministic, quotes the prompt and defaults to 24 tokens', () => {
    const a = buildReply('What is the capital of France?');
    expect(a).toBe(buildReply('What is the capital of France?'));
    expect(a.startsWith('Simulated reply to: What is the capital of France.')).toBe(true);
    expect(countTokens(a)).toBe(24);
    expect(buildReply('Another prompt entirely')).not.toBe(a);
  });

  it('varies per choice index and honours a target length', () => {
    expect(buildReply('hi', 1)).not.toBe(buildReply('hi', 0));
    expect(countTokens(buildReply('hi', 0, 100))).toBe(100);
  });

  it('quotes tool results', () => {
    expect(buildToolResultReply(['{"temp":21}'])).toBe('Based on the tool result: "{"temp":21}".');
  });

  it('applies stop sequences before the token limit', () => {
    const full = 'Simulated reply to: hi. The system responds.';
    expect(shapeReply(full, undefined, ['system'])).toMatchObject({
      text: 'Simulated reply to: hi. The ',
      reason: 'stop_sequence',
      stopSequence: 'system',
    });
    expect(shapeReply(full, 3, [])).toMatchObject({ text: 'Simulated reply to', reason: 'length', tokens: 3 });
    expect(shapeReply(full, 100, [])).toMatchObject({ text: full, reason: 'end', tokens: 10, stopSequence: null });
  });
});

describe('schema-driven values', () => {
  it('fills every property by type', () => {
    const schema = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        ratio: { type: 'number' },
        metric: { type: 'boolean' },
        unit: { type: 'string', enum: ['c', 'f'] },
        tags: { type: 'array', items: { type: 'string' } },
        nested: { type: 'object', properties: { ok: { type: ['boolean', 'null'] } } },
      },
    };
    expect(toolInput(schema, 'Paris')).toEqual({
      city: 'Paris',
      days: 1,
      ratio: 1,
      metric: true,
      unit: 'c',
      tags: ['Paris'],
      nested: { ok: true },
    });
    expect(valueFromSchema({ anyOf: [{ type: 'number' }] }, 'x')).toBe(1);
    expect(toolInput(undefined, 'x')).toEqual({});
  });
});

describe('directive parsing', () => {
  it('reads the model name and x-sim headers, headers winning', () => {
    const { base, directives } = parseDirectives('sim-gpt;status=503;latency=50;cut=3;fault-key=abc', {
      'x-sim-status': '429',
      'x-sim-cached': '7',
    });
    expect(base).toBe('sim-gpt');
    expect(directives).toMatchObject({ status: 429, latency: 50, cut: 3, faultKey: 'abc', cached: 7, context: 128000, chunkDelay: 0 });
  });

  it('ignores unknown keys and bad values', () => {
    const { base, directives } = parseDirectives('m;bogus=1;latency=abc;status=200', {});
    expect(base).toBe('m');
    expect(directives.status).toBeUndefined();
    expect(directives.latency).toBe(0);
  });
});

describe('stream cut position', () => {
  const frames = [dataFrame('head'), dataFrame('a', true), dataFrame('b', true), dataFrame('end')];
  it('cuts after the Nth content frame, or after the last one when there are fewer', () => {
    expect(cutIndex(frames, 0)).toBe(0);
    expect(cutIndex(frames, 1)).toBe(1);
    expect(cutIndex(frames, 2)).toBe(2);
    expect(cutIndex(frames, 9)).toBe(2);
  });
});
