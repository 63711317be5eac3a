import { describe, expect, it } from 'vitest';
import { checkJsonBody, MAX_JSON_DEPTH, nulAllowedUnder, PROVIDER_ONLY_FIELDS } from './json-body.js';

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = level % 2 ? [value] : { a: value };
  return value;
}

describe('checkJsonBody', () => {
  it('takes 64 levels of objects and arrays and refuses 65, without recursion', () => {
    expect(checkJsonBody(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(checkJsonBody(nested(MAX_JSON_DEPTH + 1))?.message).toBe('Request body is nested deeper than 64 levels');
    expect(checkJsonBody(nested(200_000))?.status).toBe(400);
  });

  it('names the field holding a NUL, in the message and in metadata.param', () => {
    const error = checkJsonBody({ metadata: { tags: ['ok', 'b\u0000d'] } });
    expect(error?.status).toBe(400);
    expect(error?.metadata).toEqual({ param: 'metadata.tags[1]' });
    expect(error?.message).toBe('metadata.tags[1]: must not contain the NUL character (\\u0000)');
    expect(checkJsonBody({ metadata: { 'k\u0000': 'v' } })?.metadata).toEqual({ param: 'metadata' });
    expect(checkJsonBody('\u0000')?.metadata).toEqual({ param: 'body' });
  });

  it('lets NUL through only under the provider-only fields it is given', () => {
    const body = { messages: [{ role: 'user', content: 'a\u0000b' }], session_id: 's' };
    expect(checkJsonBody(body)?.metadata).toEqual({ param: 'messages[0].content' });
    expect(checkJsonBody(body, PROVIDER_ONLY_FIELDS)).toBeUndefined();
    expect(checkJsonBody({ ...body, session_id: '\u0000' }, PROVIDER_ONLY_FIELDS)?.metadata).toEqual({ param: 'session_id' });
    // ...and depth is still counted there.
    expect(checkJsonBody({ messages: nested(MAX_JSON_DEPTH) }, PROVIDER_ONLY_FIELDS)?.message).toMatch(/nested deeper/);
  });

  it('applies the provider-only fields to the provider-bound routes and not to preset writes', () => {
    expect(nulAllowedUnder('/v1/chat/completions')).toBe(PROVIDER_ONLY_FIELDS);
    expect(nulAllowedUnder('/v1/responses?x=1')).toBe(PROVIDER_ONLY_FIELDS);
    expect(nulAllowedUnder('/v1/messages')).toBe(PROVIDER_ONLY_FIELDS);
    expect(nulAllowedUnder('/v1/embeddings')).toBe(PROVIDER_ONLY_FIELDS);
    expect(nulAllowedUnder('/v1/presets/x/chat/completions')).toBeUndefined();
    expect(nulAllowedUnder('/v1/keys')).toBeUndefined();
  });

  it('refuses a lone surrogate in any string or property name, provider-only fields included, and keeps pairs', () => {
    const lone = JSON.parse('"\\ud800"') as string;
    expect(checkJsonBody({ model: lone })?.metadata).toEqual({ param: 'model' });
    expect(checkJsonBody({ stop: ['ok', `x${lone}`] })?.message).toMatch(/^stop\[1\]: must be valid Unicode/);
    expect(checkJsonBody({ messages: [{ role: 'user', content: lone }] }, PROVIDER_ONLY_FIELDS)?.metadata).toEqual({
      param: 'messages[0].content',
    });
    expect(checkJsonBody({ metadata: { [lone]: 'v' } })?.metadata).toEqual({ param: 'metadata' });
    expect(checkJsonBody({ a: JSON.parse('"\\udc00\\ud800"') as string }, undefined, 'requests[2].body')?.metadata).toEqual({
      param: 'requests[2].body.a',
    });
    expect(checkJsonBody({ content: '\u{1F600} \ud83d\ude00' })).toBeUndefined();
  });

  it('refuses the prototype-poisoning keys like unknown fields', () => {
    expect(checkJsonBody(JSON.parse('{"a":{"__proto__":{"x":1}}}'))?.message).toBe('a.__proto__: property __proto__ should not exist');
    expect(checkJsonBody(JSON.parse('{"constructor":{"prototype":{}}}'))?.message).toBe(
      'constructor: property constructor should not exist',
    );
    expect(checkJsonBody({ tools: [{ parameters: { properties: { constructor: { type: 'string' } } } }] })).toBeUndefined();
  });
});
