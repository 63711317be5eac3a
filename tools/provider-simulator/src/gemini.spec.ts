import { GoogleGenAI } from '@google/genai';
import { JWT } from 'google-auth-library';
import { SignJWT } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from './index.ts';
import type { ServiceAccountJson } from './gemini-auth.ts';

let sim: RunningSimulator;
let account: ServiceAccountJson;

beforeAll(async () => {
  sim = await startSimulator();
  account = (await (await fetch(`${sim.url}/sim/google/service-account`)).json()) as ServiceAccountJson;
});
afterAll(() => sim.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const hello = { contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }] };

/** google-auth-library's own JWT client, its token endpoint moved to the simulator. */
async function accessToken(json: { client_email: string; private_key: string }): Promise<string> {
  const client = new JWT({ email: json.client_email, key: json.private_key, scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
  client.transporter.interceptors.request.add({
    resolved: async (options) => {
      options.url = new URL(`${sim.url}/google/oauth2/token`);
      return options;
    },
  });
  const { token } = await client.getAccessToken();
  return token!;
}

describe('Gemini API', () => {
  it('answers @google/genai (generateContent, stream, countTokens, embedContent)', async () => {
    const ai = new GoogleGenAI({ apiKey: 'sim-key', httpOptions: { baseUrl: sim.url } });
    const answer = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hello there' });
    expect(answer.text).toMatch(/^Simulated reply to: Hello there\./);
    expect(answer.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    let streamed = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Hello there' }))
      streamed += chunk.text ?? '';
    expect(streamed).toBe(answer.text);
    expect((await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: 'Hello there' })).totalTokens).toBe(
      answer.usageMetadata?.promptTokenCount,
    );
    const embedded = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: ['a', 'b'] });
    expect(embedded.embeddings).toHaveLength(2);
  });

  it('refuses a missing key (403), an invalid one (400 API_KEY_INVALID) and fields Google does not know (400)', async () => {
    const path = '/v1beta/models/gemini-2.5-flash:generateContent';
    expect((await post(path, hello)).status).toBe(403);
    const invalid = await post(path, hello, { 'x-goog-api-key': 'sim-gemini-invalid' });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(await invalid.json())).toContain('API_KEY_INVALID');
    const unknown = await post(path, { ...hello, generationConfig: { max_tokens: 5 } }, { 'x-goog-api-key': 'k' });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('Unknown name "max_tokens"') },
    });
  });

  it('answers a 429 with RetryInfo, as Google does', async () => {
    const response = await post('/v1beta/models/gemini-2.5-flash;status=429;retry-after=7:generateContent', hello, {
      'x-goog-api-key': 'k',
    });
    expect(response.status).toBe(429);
    expect(await response.json()).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED', details: [{ retryDelay: '7s' }] } });
  });
});

describe('Vertex AI', () => {
  const path = '/vertex/v1/projects/sim-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent';

  it('takes only access tokens it issued for a trusted service account', async () => {
    const token = await accessToken(account);
    const ok = await post(path, hello, { authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect((await post(path, hello)).status).toBe(401);
    expect((await post(path, hello, { authorization: 'Bearer ya29.made-up' })).status).toBe(401);
  });

  it('refuses an assertion signed by another key, or for the wrong audience', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const stranger = { client_email: account.client_email, private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    await expect(accessToken(stranger)).rejects.toThrow(/invalid_grant/);
    const { createPrivateKey } = await import('node:crypto');
    const assertion = await new SignJWT({ scope: 'https://www.googleapis.com/auth/cloud-platform' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(account.client_email)
      .setAudience('https://example.com/token')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(createPrivateKey(account.private_key));
    const response = await fetch(`${sim.url}/google/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
    });
    expect(response.status).toBe(400);
  });

  it('takes Vertex-only fields (labels) that the Gemini API refuses', async () => {
    const token = await accessToken(account);
    expect((await post(path, { ...hello, labels: { team: 'a' } }, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect(
      (await post('/v1beta/models/gemini-2.5-flash:generateContent', { ...hello, labels: { team: 'a' } }, { 'x-goog-api-key': 'k' }))
        .status,
    ).toBe(400);
  });

  it('streams a function call by JSON path when streamFunctionCallArguments asks (Vertex only: the Gemini API refuses it)', async () => {
    const token = await accessToken(account);
    const asked = {
      contents: [{ role: 'user', parts: [{ text: 'Weather in Paris' }] }],
      tools: [
        {
          functionDeclarations: [
            { name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { location: { type: 'string' } } } },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', streamFunctionCallArguments: true } },
    };
    const response = await post(path.replace(':generateContent', ':streamGenerateContent?alt=sse'), asked, {
      authorization: `Bearer ${token}`,
    });
    const calls = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .flatMap((line) => (JSON.parse(line.slice(6)) as any).candidates[0].content.parts)
      .map((part: any) => part.functionCall)
      .filter(Boolean);
    expect(calls[0]).toEqual({ name: 'get_weather', willContinue: true });
    expect(calls.at(-1)).toEqual({});
    const pieces = calls.slice(1, -1).flatMap((call: any) => call.partialArgs);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((arg: any) => arg.jsonPath === '$.location')).toBe(true);
    expect(pieces.map((arg: any) => arg.willContinue ?? false)).toEqual([...pieces.slice(1).map(() => true), false]);
    expect(pieces.map((arg: any) => arg.stringValue).join('')).toBe('Weather in Paris');
    const refused = await post('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', asked, { 'x-goog-api-key': 'sim-gemini' });
    expect(refused.status).toBe(400);
  });
});
