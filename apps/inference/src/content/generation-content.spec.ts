import { describe, expect, it } from 'vitest';
import { redactSecrets } from './content-redaction.js';
import { chatContent, prepareContent } from './generation-content.js';

describe('redactSecrets', () => {
  it('replaces keys of the known shapes and counts them', () => {
    const text = [
      `gateway sk-gw-v1-${'a'.repeat(64)}`,
      `openai sk-proj-${'B'.repeat(40)}`,
      `anthropic sk-ant-api03-${'c'.repeat(40)}`,
      'aws AKIAABCDEFGHIJKLMNOP',
      `github ghp_${'d'.repeat(36)}`,
      `google AIza${'e'.repeat(35)}`,
      'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
    ].join('\n');
    const { text: out, redactions } = redactSecrets(text);
    expect(redactions).toBe(8);
    for (const kind of [
      'gateway_key',
      'openai_key',
      'anthropic_key',
      'aws_access_key',
      'github_token',
      'google_api_key',
      'jwt',
      'private_key',
    ]) {
      expect(out).toContain(`[REDACTED:${kind}]`);
    }
    expect(out).not.toMatch(/aaaa|BBBB|cccc|AKIA|dddd|eeee|MIIE/);
  });

  it('leaves ordinary text alone', () => {
    const text = 'The sk-ate ski resort; task-force; AKIA is short; ghp_ alone; eyJ without dots';
    expect(redactSecrets(text)).toEqual({ text, redactions: 0 });
  });
});

describe('prepareContent', () => {
  const draft = chatContent([{ role: 'user', content: `my key is sk-or-v1-${'f'.repeat(64)}` }], {
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello there', reasoning: 'thinking' },
        finish_reason: 'stop',
        native_finish_reason: 'stop',
        logprobs: null,
      },
    ],
  } as never);

  it('keeps the messages and the first choice, redacted, under the size', () => {
    const prepared = prepareContent(draft, 10_000);
    expect(prepared.truncated).toBe(false);
    expect(prepared.redactions).toBe(1);
    expect(JSON.parse(prepared.json)).toEqual({
      input: { messages: [{ role: 'user', content: 'my key is [REDACTED:openrouter_key]' }] },
      output: { completion: 'Hello there', reasoning: 'thinking' },
    });
  });

  it('cuts long texts to fit the cap, and says so', () => {
    const long = chatContent([{ role: 'user', content: 'x'.repeat(50_000) }], {
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'y'.repeat(50_000) },
          finish_reason: 'length',
          native_finish_reason: null,
          logprobs: null,
        },
      ],
    } as never);
    const prepared = prepareContent(long, 4_096);
    expect(prepared.truncated).toBe(true);
    expect(Buffer.byteLength(prepared.json)).toBeLessThanOrEqual(4_096);
    const parsed = JSON.parse(prepared.json) as { output: { completion: string } };
    expect(parsed.output.completion).toMatch(/^y+…\[truncated\]$/);
  });
});
