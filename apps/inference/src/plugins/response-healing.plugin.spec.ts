import { describe, expect, it } from 'vitest';
import type { NormalizedCompletion } from '../providers/provider-adapter.js';
import { healCompletion, healJson, parseResponseHealing } from './response-healing.plugin.js';

function completion(content: string): NormalizedCompletion {
  return {
    upstreamId: null,
    systemFingerprint: null,
    serviceTier: null,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: 'stop',
        native_finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0, reasoningTokens: 0, estimated: false },
  };
}

describe('response-healing', () => {
  it('repairs fenced JSON with a trailing comma, single quotes or a cut-off end (jsonrepair), and leaves valid JSON alone', () => {
    expect(healJson('```json\n{"a": 1,}\n```')).toEqual({ json: '{"a": 1}', repaired: true });
    expect(JSON.parse(healJson("{'a': 'b'}").json)).toEqual({ a: 'b' });
    expect(JSON.parse(healJson('{"items": [1, 2').json)).toEqual({ items: [1, 2] });
    expect(healJson('{"ok":true}')).toEqual({ json: '{"ok":true}', repaired: false });
  });

  it('heals the answer in place and validates it against the json_schema', () => {
    const schema = { type: 'object', properties: { reply: { type: 'string' } }, required: ['reply'] };
    const body = { response_format: { type: 'json_schema', json_schema: { name: 'r', schema } } };
    const config = parseResponseHealing({ id: 'response-healing' }, 'plugins[0]', body, false);
    const ok = completion('```json\n{"reply": "hi",}\n```');
    expect(healCompletion(ok, config)).toEqual({ repaired: 1 });
    expect(JSON.parse(ok.choices[0]!.message.content!)).toEqual({ reply: 'hi' });
    expect(() => healCompletion(completion('{"reply": 5}'), config)).toThrow(/does not match the response schema: \/reply must be string/);
  });
});
