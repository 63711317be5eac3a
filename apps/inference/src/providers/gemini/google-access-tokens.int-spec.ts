import { configureGoogleTokens } from '@gw/provider-simulator';
import { SignJWT, decodeJwt } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { endpointOf } from '../conformance/conformance-subjects.js';
import { simulatorUpstream } from '../../testing/spec-helpers.js';
import { VertexAdapter } from './gemini.adapter.js';
import { GoogleAccessTokens } from './google-access-tokens.js';

/** Vertex access tokens through google-auth-library against the simulator's token endpoint. */
describe('GoogleAccessTokens', () => {
  const sim = simulatorUpstream();
  afterAll(() => configureGoogleTokens({ ttlSeconds: 3600 }));

  it('keeps a token while it has time left, and renews one within five minutes of expiry before using it', async () => {
    const account = await (await fetch(`${sim.simulator.url}/sim/google/service-account`)).text();
    const tokens = new GoogleAccessTokens();
    const credential = tokens.credential(account, `${sim.simulator.url}/google/oauth2/token`);
    configureGoogleTokens({ ttlSeconds: 3600 });
    const first = await tokens.accessToken('sim-vertex', credential);
    expect(await tokens.accessToken('sim-vertex', credential)).toBe(first);
    // Tokens now live four minutes: each is already inside the renewal window when it arrives.
    configureGoogleTokens({ ttlSeconds: 240 });
    const soonExpiring = await tokens.accessToken('sim-vertex', tokens.credential(account, `${sim.simulator.url}/google/oauth2/token`));
    expect(soonExpiring).toBe(first); // the hour-long one is still good
    const fresh = new GoogleAccessTokens();
    const shortLived = fresh.credential(account, `${sim.simulator.url}/google/oauth2/token`);
    const a = await fresh.accessToken('sim-vertex', shortLived);
    const b = await fresh.accessToken('sim-vertex', shortLived);
    expect(b).not.toBe(a);
  });

  it('fails a refused credential as final, an unreachable token endpoint as retryable', async () => {
    const account = await (await fetch(`${sim.simulator.url}/sim/google/service-account`)).text();
    const tokens = new GoogleAccessTokens();
    const wrongScope = JSON.stringify({ ...JSON.parse(account), client_email: 'stranger@sim-project.iam.gserviceaccount.com' });
    const refused = await tokens
      .accessToken('sim-vertex', tokens.credential(wrongScope, `${sim.simulator.url}/google/oauth2/token`))
      .catch((error: unknown) => error as { retryable: boolean; gatewayError: { status: number } });
    expect(refused).toMatchObject({ retryable: false, gatewayError: { status: 502 } });
    const unreachable = await tokens
      .accessToken('sim-vertex', tokens.credential(account, 'http://127.0.0.1:9/token'))
      .catch((error: unknown) => error as { retryable: boolean });
    expect(unreachable).toMatchObject({ retryable: true });
  });

  it("workload identity federation: the pod's token exchanged at the STS for a token Vertex takes; a forged or misdirected one refused", async () => {
    const url = sim.simulator.url;
    const pod = (await (await fetch(`${url}/sim/google/workload-identity`)).json()) as { audience: string; subject_token: string };
    const dir = mkdtempSync(join(tmpdir(), 'workload-identity-'));
    const configuration = (subjectToken: string, audience = pod.audience) => {
      const file = join(dir, `token-${Math.random().toString(36).slice(2)}`);
      writeFileSync(file, subjectToken);
      return JSON.stringify({
        type: 'external_account',
        audience,
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        token_url: `${url}/google/sts/v1/token`,
        credential_source: { file },
      });
    };
    const tokens = new GoogleAccessTokens();
    expect(await tokens.accessToken('sim-vertex', tokens.credential(configuration(pod.subject_token)))).toMatch(/^ya29\.sim-federated-/);

    // Through the Vertex adapter: the catalog names the project, the federated token is the Bearer.
    const vertex = new VertexAdapter(sim.upstream, tokens);
    const provider = {
      id: 'sim-vertex',
      name: 'Vertex AI',
      format: 'vertex' as const,
      baseUrl: `${url}/vertex/v1`,
      vertex: { location: 'us-central1', project: 'sim-project' },
    };
    const body = { model: 'm', messages: [{ role: 'user', content: 'Hello there' }] };
    const answer = await vertex.complete(
      endpointOf({ ...provider, apiKey: configuration(pod.subject_token) }, 'gemini-2.5-flash'),
      body,
      {},
    );
    expect(answer.choices[0]!.message.content).toMatch(/^Simulated reply to: Hello there/);

    // The same claims signed by a key the cluster's issuer never had, and the right token for another pool provider.
    const forged = await new SignJWT(decodeJwt(pod.subject_token))
      .setProtectedHeader({ alg: 'RS256', kid: 'sim-cluster' })
      .sign(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    const otherPool = pod.audience.replace('sim-pool', 'other-pool');
    for (const refused of [configuration(forged), configuration(pod.subject_token, otherPool)])
      await expect(tokens.accessToken('sim-vertex', tokens.credential(refused))).rejects.toMatchObject({
        retryable: false,
        gatewayError: { status: 502 },
      });
    // A workspace's key is never a configuration that reads the gateway's own files.
    expect(() => tokens.credential(configuration(pod.subject_token), undefined, true)).toThrow(/not an external_account/);
  });
});
