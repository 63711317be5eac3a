import { ClientSecretCredential, getBearerTokenProvider } from '@azure/identity';
import { Agent, request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_ENTRA_CLIENT_ID, SIM_ENTRA_CLIENT_SECRET, SIM_ENTRA_TENANT_ID } from './entra.ts';
import { startSimulator, type RunningSimulator } from './index.ts';
import { createTlsMaterial } from './tls-material.ts';

let sim: RunningSimulator;
let agent: Agent;
beforeAll(async () => {
  const tls = await createTlsMaterial();
  sim = await startSimulator({ tls });
  agent = new Agent({ ca: [...rootCertificates, tls.ca] });
});
afterAll(() => sim.close());

const SCOPE = 'https://cognitiveservices.azure.com/.default';
const credential = (secret = SIM_ENTRA_CLIENT_SECRET, tenant = SIM_ENTRA_TENANT_ID) =>
  new ClientSecretCredential(tenant, SIM_ENTRA_CLIENT_ID, secret, {
    authorityHost: sim.tlsUrl,
    disableInstanceDiscovery: true,
    agent,
    retryOptions: { maxRetries: 0 },
  });

/** A form POST to the token endpoint over the run's TLS, as MSAL sends it. */
function tokenCall(form: Record<string, string>, tenant = SIM_ENTRA_TENANT_ID): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const call = request(
      `${sim.tlsUrl}/${tenant}/oauth2/v2.0/token`,
      { method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    call.on('error', reject);
    call.end(new URLSearchParams(form).toString());
  });
}

describe('Entra ID token endpoint (real @azure/identity and openai AzureOpenAI clients)', () => {
  it("issues a token through Microsoft's library that the simulated Azure resource takes as Bearer", async () => {
    const client = new AzureOpenAI({
      endpoint: `${sim.url}/azure`,
      azureADTokenProvider: getBearerTokenProvider(credential(), SCOPE),
      apiVersion: '2024-10-21',
      deployment: 'gpt-4o-mini-prod',
      maxRetries: 0,
    });
    const res = await client.chat.completions.create({ model: '', messages: [{ role: 'user', content: 'Tell me a joke' }] });
    expect(res.choices[0]!.message.content).toMatch(/^Simulated reply to: Tell me a joke\./);
  });

  it('refuses a wrong secret, an unknown tenant, another scope, and a token it never issued', async () => {
    await expect(credential('wrong').getToken(SCOPE)).rejects.toThrow(/AADSTS7000215/);
    await expect(credential(undefined, 'other-tenant').getToken(SCOPE)).rejects.toThrow();
    const form = { grant_type: 'client_credentials', client_id: SIM_ENTRA_CLIENT_ID, client_secret: SIM_ENTRA_CLIENT_SECRET };
    expect(await tokenCall({ ...form, scope: 'https://management.azure.com/.default' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope' },
    });
    expect(await tokenCall({ ...form, scope: SCOPE }, 'other-tenant')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const forged = await fetch(`${sim.url}/azure/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer forged', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(forged.status).toBe(401);
  });

  it('answers the authority only over TLS', async () => {
    const plain = await fetch(`${sim.url}/${SIM_ENTRA_TENANT_ID}/oauth2/v2.0/token`, {
      method: 'POST',
      body: 'grant_type=client_credentials',
    });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { error_description: string }).error_description).toMatch(/https/);
  });
});
