import { pino } from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { REDACTED_PATHS } from './logging.js';

const SECRET = 'sk-byok-LogRedactionSecret-0123456789';

function logged(object: Record<string, unknown>): string {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink).info(object, 'message');
  return lines.join('');
}

describe('log redaction of BYOK secrets', () => {
  it.each([
    ['a create payload', { payload: { principal: {}, credential: { provider: 'openai', key: SECRET } } }],
    ['an update payload', { data: { id: 'x', changes: { key: SECRET } } }],
    [
      'a resolve reply',
      {
        reply: {
          credentials: [
            { id: 'a', apiKey: SECRET },
            { id: 'b', apiKey: SECRET },
          ],
        },
      },
    ],
    ['a bare resolve reply', { credentials: [{ id: 'a', apiKey: SECRET }] }],
    ['one resolved credential', { credential: { apiKey: SECRET } }],
    ['the key-encryption keys', { env: { BYOK_KEKS: SECRET } }],
  ])('removes the secret from %s', (_what, object) => {
    const line = logged(object);
    expect(line).not.toContain(SECRET);
    expect(line).toContain('[redacted]');
  });
});
