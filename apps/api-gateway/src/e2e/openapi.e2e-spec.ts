import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from './e2e-helpers.js';

const committed = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../../docs/openapi.json'), 'utf8'));

describe('GET /v1/openapi.json', () => {
  it('serves the committed document without a key: OpenAPI 3.1, version 1.0.0, the deprecated sign alias marked', async () => {
    const answer = await call('/openapi.json', { key: null });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual(committed);
    const document = answer.body as typeof committed;
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.paths['/v1/interns/{internId}/daemon-access/sign'].post.deprecated).toBe(true);
    expect(document.paths['/v1/interns/{internId}/daemon/sign'].post.deprecated).toBeUndefined();
  });

  it('describes the bounds the gateway enforces: a body over one is a 400 the document lists', async () => {
    const schema = committed.components.schemas.ChatCompletionRequestDto.properties.temperature;
    expect(schema).toMatchObject({ minimum: 0, maximum: 2 });
    const refused = await call('/chat/completions', {
      body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 2.5 },
    });
    expect(refused.status).toBe(400);
    expect(Object.keys(committed.paths['/v1/chat/completions'].post.responses)).toContain('400');
  });
});
