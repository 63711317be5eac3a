import { describe, expect, it } from 'vitest';
import { leftOutHeaderOf } from './responses-left-out.js';

describe('leftOutHeaderOf', () => {
  it('names the fields ResponsesRequestDto does not declare, and nothing when all are declared', () => {
    const served = { model: 'm', input: 'hi', store: false, prompt_cache_key: 'k', plugins: [], stream: true, client_metadata: null };
    expect(leftOutHeaderOf(served)).toBeUndefined();
    expect(leftOutHeaderOf({ ...served, client_metadata: { session: 's' }, stream_options: { include_obfuscation: false } })).toEqual({
      'x-gateway-warning':
        'client_metadata was left out: not a field /v1/responses serves; stream_options was left out: not a field /v1/responses serves',
    });
  });
});
