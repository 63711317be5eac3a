import { SIM_MANAGED_IDENTITY_CLIENT_ID } from '@gw/provider-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf, simulatorUpstream } from '../../testing/spec-helpers.js';
import { HELLO, managedIdentityAdapter, managedIdentityEndpoint } from './managed-identity-cases.js';

/**
 * Azure OpenAI with the managed identity of a VM or AKS node: Microsoft's library asks the
 * instance metadata service, here the simulator's stand-in (AZURE_POD_IDENTITY_AUTHORITY_HOST,
 * read by the library). Its own file: the library settles its token source once per process.
 */
describe('Azure managed identity through the instance metadata service', () => {
  const sim = simulatorUpstream();
  const saved = { ...process.env };
  beforeAll(() => {
    delete process.env.IDENTITY_ENDPOINT;
    delete process.env.IDENTITY_HEADER;
    delete process.env.MSI_ENDPOINT;
    process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST = sim.simulator.url;
  });
  afterAll(() => {
    process.env = saved;
  });
  const imds = (query: string, headers: Record<string, string> = { metadata: 'true' }) =>
    fetch(`${sim.simulator.url}/metadata/identity/oauth2/token?${query}`, { headers }).then((response) => response.status);

  it('the stand-in checks what IMDS checks: the Metadata header, api-version, a resource, an identity the host has', async () => {
    const good = 'api-version=2018-02-01&resource=https://cognitiveservices.azure.com';
    expect(await imds(good)).toBe(200);
    expect(await imds(good, {})).toBe(400);
    expect(await imds('api-version=2019-08-01&resource=https://cognitiveservices.azure.com')).toBe(400);
    expect(await imds('api-version=2018-02-01')).toBe(400);
    expect(await imds(`${good}&client_id=00000000-0000-4000-8000-000000000000`)).toBe(400);
    expect(await imds(`${good}&client_id=${SIM_MANAGED_IDENTITY_CLIENT_ID}`)).toBe(200);
  });

  it("a user-assigned identity's token is taken by the Azure resource; an identity the host lacks gives no token (a 502 routing may pass over)", async () => {
    const answer = await managedIdentityAdapter(sim.upstream, SIM_MANAGED_IDENTITY_CLIENT_ID).complete(
      managedIdentityEndpoint(sim.simulator.url),
      HELLO,
      {},
    );
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const failure = await failureOf(
      managedIdentityAdapter(sim.upstream, '00000000-0000-4000-8000-000000000000').complete(
        managedIdentityEndpoint(sim.simulator.url),
        HELLO,
        {},
      ),
    );
    expect([failure.gatewayError.status, failure.gatewayError.message]).toEqual([
      502,
      'Provider sim-azure-mi The managed identity endpoint gave no token',
    ]);
  });
});
