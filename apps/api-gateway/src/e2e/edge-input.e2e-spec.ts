import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/*
 * Issue 9, items 1 (edge part), 7 and 8: what reaches the gateway malformed is refused with
 * the spec's envelope (§7.1), never a 500 and never Fastify's or Node's own body.
 */

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], ...extra });

/** Sends `head` (and nothing else) on a fresh socket and parses what comes back. */
function rawRequest(head: Buffer | string, timeoutMs = 5_000): Promise<{ status: number; headers: string; body: unknown; text: string }> {
  const url = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined); // the server may reset after answering
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [headers = '', body = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0);
      let parsed: unknown = body;
      try {
        parsed = JSON.parse(body);
      } catch {
        // the assertion will show it
      }
      resolve({ status, headers, body: parsed, text });
    });
    socket.write(head);
  });
}

const requestHead = (target: string | Buffer) =>
  Buffer.concat([
    Buffer.from('GET '),
    Buffer.isBuffer(target) ? target : Buffer.from(target, 'latin1'),
    Buffer.from(` HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.managementKey}\r\nConnection: close\r\n\r\n`),
  ]);

function nested(depth: number): unknown {
  let value: unknown = 'x';
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

describe('NUL in strings that are stored (issue 9 item 1)', () => {
  const cases: Array<{ what: string; path: string; body: unknown; field: string }> = [
    { what: 'a key name', path: '/keys', body: { name: 'a\u0000b' }, field: 'name' },
    { what: 'a key name on update', path: '/keys', body: { name: '\u0000' }, field: 'name' },
    { what: 'a BYOK name', path: '/byok', body: { provider: 'openai', key: 'sk-test-1234567890', name: 'n\u0000' }, field: 'name' },
    { what: 'a session id', path: '/chat/completions', body: chat({ session_id: 'a\u0000b' }), field: 'session_id' },
    { what: 'an end-user id', path: '/chat/completions', body: chat({ user: 'u\u0000' }), field: 'user' },
    {
      what: 'a metadata value',
      path: '/responses',
      body: { model: 'sim/gpt-4o-mini', input: 'x', metadata: { k: 'v\u0000' } },
      field: 'metadata.k',
    },
    {
      what: 'a metadata key',
      path: '/responses',
      body: { model: 'sim/gpt-4o-mini', input: 'x', metadata: { 'k\u0000': 'v' } },
      field: 'metadata',
    },
    {
      what: 'a preset system prompt',
      path: '/presets/nul-test/chat/completions',
      body: { messages: [{ role: 'system', content: 'be \u0000 terse' }] },
      field: 'messages[0].content',
    },
    { what: 'a model name', path: '/embeddings', body: { model: 'sim/\u0000', input: 'x' }, field: 'model' },
    {
      what: 'a Messages metadata.user_id',
      path: '/messages',
      body: { model: 'sim/claude-sonnet', max_tokens: 16, messages: [{ role: 'user', content: 'x' }], metadata: { user_id: '\u0000' } },
      field: 'metadata.user_id',
    },
  ];

  for (const { what, path, body, field } of cases) {
    it(`refuses NUL in ${what} with 400 naming ${field}`, async () => {
      const needsManagement = /^\/(keys|byok|presets)/.test(path);
      const result = await call(path, { key: needsManagement ? stack.managementKey : stack.apiKey, body });
      expect(result.status, JSON.stringify(result.body)).toBe(400);
      const error = envelopeOf(result);
      expect(error.metadata?.error_type).toBe('invalid_request');
      expect(error.metadata?.param).toBe(field);
      expect(error.message).toContain(field);
    });
  }

  for (const [path, param] of [
    ['/interns?starting_after=a%00b', 'starting_after'],
    ['/byok?provider=open%00ai', 'provider'],
    ['/keys?include_disabled=true&a%00=1', 'a\\u0000'],
  ] as const) {
    it(`refuses NUL in the query string with 400 naming ${param}`, async () => {
      const result = await call(path, { key: path.startsWith('/interns') ? stack.apiKey : stack.managementKey });
      expect(result.status, JSON.stringify(result.body)).toBe(400);
      const error = envelopeOf(result);
      expect(error.metadata?.param).toBe(param);
    });
  }

  it('lets NUL through in message content, which only goes to the provider', async () => {
    const result = await call('/chat/completions', { body: chat({ messages: [{ role: 'user', content: 'a\u0000b' }] }) });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
  });
});

describe('JSON nesting depth (issue 9 item 7)', () => {
  const endpoints: Array<{ path: string; key: 'api' | 'management'; body: (deep: unknown) => unknown }> = [
    { path: '/chat/completions', key: 'api', body: (deep) => ({ model: 'sim/gpt-4o-mini', messages: deep }) },
    { path: '/responses', key: 'api', body: (deep) => ({ model: 'sim/gpt-4o-mini', input: deep }) },
    { path: '/messages', key: 'api', body: (deep) => ({ model: 'sim/claude-sonnet', max_tokens: 16, messages: deep }) },
    { path: '/embeddings', key: 'api', body: (deep) => ({ model: 'sim/text-embedding-3-small', input: deep }) },
    { path: '/keys', key: 'management', body: (deep) => ({ name: deep }) },
    { path: '/byok', key: 'management', body: (deep) => ({ provider: 'openai', key: deep }) },
    { path: '/presets/deep/chat/completions', key: 'management', body: (deep) => ({ messages: deep }) },
    { path: '/interns', key: 'api', body: (deep) => ({ name: deep }) },
    { path: '/credits', key: 'management', body: (deep) => ({ amount: deep }) },
  ];

  for (const { path, key, body } of endpoints) {
    it(`answers 400 with the envelope for 1,500 levels on POST ${path}`, async () => {
      const result = await call(path, { key: key === 'api' ? stack.apiKey : stack.managementKey, body: body(nested(1_500)) });
      expect(result.status, JSON.stringify(result.body).slice(0, 300)).toBe(400);
      expect(envelopeOf(result).message).toMatch(/nested deeper than 64/);
    });
  }

  it('takes 64 levels and refuses 65', async () => {
    // The body object is level 1, `messages` (the outermost of the arrays) level 2: 63 arrays make 64.
    const at64 = await call('/chat/completions', { body: { model: 'sim/gpt-4o-mini', messages: nested(63) } });
    expect(envelopeOf(at64).message).not.toMatch(/nested deeper/);
    const at65 = await call('/chat/completions', { body: { model: 'sim/gpt-4o-mini', messages: nested(64) } });
    expect(at65.status).toBe(400);
    expect(envelopeOf(at65).message).toMatch(/nested deeper than 64/);
  });

  it('refuses depth on the sign route with the sign route’s shape', async () => {
    const result = await call('/interns/00000000-0000-4000-8000-000000000000/daemon/sign', { body: { bodySha256: nested(100) } });
    expect(result.status).toBe(400);
    expect(envelopeOf(result).metadata).toMatchObject({ reason: 'invalid_body' });
  });
});

describe('errors Fastify and Node raise themselves (issue 9 item 8)', () => {
  it('431 with the envelope for a URL over 16 KB', async () => {
    const result = await rawRequest(requestHead(`/v1/keys?x=${'a'.repeat(17_000)}`));
    expect(result.status).toBe(431);
    expect(envelopeOf(result)).toMatchObject({ code: 431, metadata: { error_type: 'invalid_request' } });
  });

  it('414 with the envelope, without echoing the URL, for a path parameter over 100 characters', async () => {
    const long = 'z'.repeat(150);
    const result = await call(`/keys/${long}`, { key: stack.managementKey });
    expect(result.status).toBe(414);
    const error = envelopeOf(result);
    expect(JSON.stringify(result.body)).not.toContain(long);
    expect(error.metadata?.error_type).toBe('invalid_request');
  });

  for (const bad of ['%ff', '%zz', '%c3%28', '%']) {
    it(`400 with the envelope for the malformed URL /v1/keys/${bad}`, async () => {
      const result = await rawRequest(requestHead(`/v1/keys/${bad}`));
      expect(result.status, result.text).toBe(400);
      const error = envelopeOf(result);
      expect(error.metadata?.error_type).toBe('invalid_request');
      expect(error.message).not.toContain(bad);
    });
  }

  it('400 with the envelope for raw non-ASCII bytes in the request line', async () => {
    const result = await rawRequest(requestHead(Buffer.from([0x2f, 0x76, 0x31, 0x2f, 0xc3, 0xa9, 0xff])));
    expect(result.status, result.text).toBe(400);
    expect(envelopeOf(result).metadata?.error_type).toBe('invalid_request');
    expect(result.headers).toMatch(/content-type: application\/json/i);
  });

  it('accepts DELETE with content-type: application/json and no body', async () => {
    const created = await call('/keys', { key: stack.managementKey, body: { name: 'delete with a json content type' } });
    expect(created.status).toBe(201);
    const { hash } = (created.body as { data: { hash: string } }).data;
    const result = await call(`/keys/${hash}`, {
      method: 'DELETE',
      key: stack.managementKey,
      headers: { 'content-type': 'application/json' },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body).toEqual({ deleted: true });
  });

  for (const name of ['hasOwnProperty', 'toString', 'valueOf', '__proto__', 'constructor']) {
    it(`refuses "${name}" as a body key like any unknown field`, async () => {
      const keys = await call('/keys', {
        key: stack.managementKey,
        rawBody: `{"name":"k","${name}":1}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(keys.status, JSON.stringify(keys.body)).toBe(400);
      expect(envelopeOf(keys).message).toContain(name);
      const credits = await call('/credits', {
        key: stack.managementKey,
        rawBody: `{"amount":1,"${name}":{"x":1}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(credits.status, JSON.stringify(credits.body)).toBe(400);
      const chatResult = await call('/chat/completions', {
        rawBody: JSON.stringify(chat()).replace(/^\{/, `{"${name}":1,`),
        headers: { 'content-type': 'application/json' },
      });
      expect(chatResult.status, JSON.stringify(chatResult.body)).toBe(400);
      expect(envelopeOf(chatResult).message).toContain(name);
    });
  }
});
