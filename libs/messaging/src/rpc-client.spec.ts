import { describe, expect, it } from 'vitest';
import { randomToken } from './rpc-client.js';

describe('randomToken (the random part of reply subjects)', () => {
  it('gives 12 base64url characters, all distinct across several pool refills', () => {
    const tokens = Array.from({ length: 2_000 }, () => randomToken());
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});
