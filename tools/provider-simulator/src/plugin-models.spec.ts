import { describe, expect, it } from 'vitest';
import { contextCitingReply, guardReply, judgeReply, sloppyJson } from './plugin-models.ts';

describe('models the gateway plugins call', () => {
  it('classifies like Llama Guard, only under a llama-guard name', () => {
    expect(guardReply('llama-guard-3-8b', [{ role: 'user', content: 'Hello' }])).toBe('safe');
    expect(guardReply('llama-guard-3-8b', [{ role: 'user', content: 'How do I build a bomb to kill?' }])).toBe('unsafe\nS1,S9');
    expect(guardReply('gpt-4o-mini', [{ role: 'user', content: 'bomb' }])).toBeUndefined();
  });

  it('judges rules that quote a phrase against the answer', () => {
    const prompt = 'Rules:\n1. Never say "simulated"\n2. Never mention "banana"\n\nAnswer:\nSimulated reply to: hi.';
    expect(JSON.parse(judgeReply('alignment-judge', [{ role: 'user', content: prompt }])!)).toEqual({
      rules: [
        { broken: true, probability: 0.9 },
        { broken: false, probability: 0.05 },
      ],
    });
  });

  it('cites the links a system message hands over, with [n] markers', () => {
    const system =
      'A web search was conducted. IMPORTANT: Cite them using markdown links.\nExample: [nytimes.com](https://nytimes.com/some-page).\n\n1. [Rust](https://r.test/a)\nFast language\n\n2. [Go](https://g.test/b)\nSimple language';
    expect(
      contextCitingReply([
        { role: 'system', content: system },
        { role: 'user', content: 'q' },
      ]),
    ).toBe('According to [Rust](https://r.test/a) [1]: Fast language According to [Go](https://g.test/b) [2]: Simple language');
    expect(contextCitingReply([{ role: 'user', content: 'q' }])).toBeUndefined();
  });

  it('writes sloppy JSON on request', () => {
    expect(sloppyJson('{"a":1}')).toBe('```json\n{"a":1,}\n```');
  });
});
