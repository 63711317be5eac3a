import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OpenApiResponseCheck } from './openapi-response-check.js';

const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../../docs/openapi.json'), 'utf8'));
const check = new OpenApiResponseCheck(document);
const json = 'application/json; charset=utf-8';
const envelope = (code: number) =>
  JSON.stringify({ error: { code, message: 'x', metadata: { error_type: 'not_found', request_id: 'r' } } });

describe('OpenApiResponseCheck', () => {
  it('accepts an answer as documented', () => {
    expect(check.problems({ method: 'GET', url: 'http://h/health', status: 200, contentType: json, body: '{"status":"ok"}' })).toEqual([]);
    expect(
      check.problems({ method: 'GET', url: `http://h/v1/keys/${'a'.repeat(64)}?x=1`, status: 404, contentType: json, body: envelope(404) }),
    ).toEqual([]);
    expect(check.problems({ method: 'POST', url: 'http://h/v1/chat/completions', status: 200, contentType: 'text/event-stream' })).toEqual(
      [],
    );
  });

  it('lets a wildcard route ({path}) take the rest of the URL, slashes too, and nothing else', () => {
    const model = (url: string) => check.problems({ method: 'GET', url, status: 404, contentType: json, body: envelope(404) });
    expect(model('http://h/v1/models/sim/gpt-4o-mini')).toEqual([]);
    expect(model('http://h/v1/models/sim%2Fgpt-4o-mini')).toEqual([]);
    expect(check.problems({ method: 'GET', url: 'http://h/v1/keys/a/b', status: 200, contentType: json, body: '{}' })[0]).toMatch(
      /undocumented route/,
    );
  });

  it('refuses an undocumented status', () => {
    expect(check.problems({ method: 'GET', url: 'http://h/health', status: 418, contentType: json, body: envelope(418) })[0]).toMatch(
      /undocumented status/,
    );
  });

  it('refuses an answer from an undocumented route, but lets a missing route be a 404 envelope', () => {
    expect(check.problems({ method: 'GET', url: 'http://h/v1/secret-admin', status: 200, contentType: json, body: '{}' })[0]).toMatch(
      /undocumented route/,
    );
    expect(check.problems({ method: 'PUT', url: 'http://h/v1/keys', status: 200, contentType: json, body: '{}' })[0]).toMatch(
      /undocumented route/,
    );
    expect(check.problems({ method: 'GET', url: 'http://h/v1/nothing', status: 404, contentType: json, body: envelope(404) })).toEqual([]);
    expect(check.problems({ method: 'GET', url: 'http://h/v1/nothing', status: 404, contentType: json, body: '{"oops":1}' })[0]).toMatch(
      /does not match/,
    );
  });

  it('refuses a body that does not match the schema, and an undocumented content type', () => {
    expect(check.problems({ method: 'GET', url: 'http://h/health', status: 200, contentType: json, body: '{"status":"fine"}' })[0]).toMatch(
      /does not match.*status/,
    );
    expect(
      check.problems({ method: 'GET', url: 'http://h/v1/credits', status: 401, contentType: json, body: '{"error":{"code":401}}' })[0],
    ).toMatch(/message/);
    expect(check.problems({ method: 'GET', url: 'http://h/health', status: 200, contentType: 'text/plain', body: 'ok' })[0]).toMatch(
      /content type/,
    );
  });
});
