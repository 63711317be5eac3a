import { describe, expect, it } from 'vitest';
import { PartialArgsWriter, type PartialArg } from './gemini-partial-args.js';

/** The JSON text of `args` written piece by piece, and the pieces. */
function written(args: PartialArg[]): { text: string; pieces: string[] } {
  const writer = new PartialArgsWriter();
  const pieces = args.map((arg) => writer.write(arg));
  pieces.push(writer.end());
  return { text: pieces.join(''), pieces };
}

describe('PartialArgsWriter (Vertex partialArgs as OpenAI argument deltas)', () => {
  it('writes a string in pieces as they come, escaped, and closes it when willContinue stops', () => {
    const { text, pieces } = written([
      { jsonPath: '$.location', stringValue: 'Bos', willContinue: true },
      { jsonPath: '$.location', stringValue: 'ton "MA"', willContinue: true },
      { jsonPath: '$.location', stringValue: '\n' },
      { jsonPath: '$.brightness', numberValue: 50 },
    ]);
    expect(JSON.parse(text)).toEqual({ location: 'Boston "MA"\n', brightness: 50 });
    expect(pieces.slice(0, 2)).toEqual(['{"location":"Bos', 'ton \\"MA\\"']);
  });

  it('opens and closes objects and arrays as the paths move, every kind of value', () => {
    const { text } = written([
      { jsonPath: '$.user.name', stringValue: 'Ada' },
      { jsonPath: '$.user.tags[0]', stringValue: 'a' },
      { jsonPath: '$.user.tags[1]', boolValue: true },
      { jsonPath: '$.user.address.city', stringValue: 'Par', willContinue: true },
      { jsonPath: '$.user.address.city', stringValue: 'is' },
      { jsonPath: "$['odd key'][0].data", nullValue: 'NULL_VALUE' },
      { jsonPath: '$.n', numberValue: -1.5 },
    ]);
    expect(JSON.parse(text)).toEqual({
      user: { name: 'Ada', tags: ['a', true], address: { city: 'Paris' } },
      'odd key': [{ data: null }],
      n: -1.5,
    });
  });

  it('is {} for a call without arguments', () => {
    expect(written([]).text).toBe('{}');
  });
});
