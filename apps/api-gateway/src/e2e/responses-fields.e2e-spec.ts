import { describe, expect, it } from 'vitest';
import { call, envelopeOf } from './e2e-helpers.js';

/** Body fields /v1/responses does not serve: named in x-gateway-warning when the answer does without them, else a 400. */
const MODELS = ['sim/gpt-4o-mini', 'sim/gpt-5-mini'];
const codexExtras = {
  client_metadata: { 'x-codex-installation-id': 'install-1' },
  stream_options: { include_obfuscation: false },
};

describe('Responses: fields the gateway does not serve', () => {
  it.each(MODELS)("%s: Codex's client_metadata and stream_options are left out and named, streamed and not", async (model) => {
    for (const stream of [false, true]) {
      const response = await call('/responses', { body: { model, input: 'hi', stream, ...codexExtras } });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const warning = response.headers.get('x-gateway-warning') ?? '';
      expect(warning).toMatch(/client_metadata was left out: not a field \/v1\/responses serves/);
      expect(warning).toMatch(/stream_options was left out/);
    }
    const plain = await call('/responses', { body: { model, input: 'hi', store: false } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-gateway-warning')).toBeNull();
  });

  it('refuses conversation, moderation, access_programs and image with 400 naming them', async () => {
    const refused = { conversation: 'conv_1', moderation: { model: 'omni-moderation-latest' }, access_programs: {}, image: {} };
    for (const [field, value] of Object.entries(refused)) {
      const response = await call('/responses', { body: { model: MODELS[0], input: 'hi', [field]: value } });
      expect(response.status, field).toBe(400);
      expect(envelopeOf(response).message).toMatch(new RegExp(`${field} is not supported`));
    }
  });
});
