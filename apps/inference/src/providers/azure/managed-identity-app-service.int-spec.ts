import { APP_SERVICE_TOKEN_PATH, SIM_IDENTITY_HEADER } from '@gw/provider-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorUpstream } from '../../testing/spec-helpers.js';
import { HELLO, managedIdentityAdapter, managedIdentityEndpoint } from './managed-identity-cases.js';

/**
 * Azure OpenAI with an App Service (or Functions, Container Apps) identity: Microsoft's library
 * asks IDENTITY_ENDPOINT with the IDENTITY_HEADER secret, here the simulator's stand-in.
 */
describe('Azure managed identity through App Service', () => {
  const sim = simulatorUpstream();
  const saved = { ...process.env };
  beforeAll(() => {
    delete process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST;
    process.env.IDENTITY_ENDPOINT = `${sim.simulator.url}${APP_SERVICE_TOKEN_PATH}`;
    process.env.IDENTITY_HEADER = SIM_IDENTITY_HEADER;
  });
  afterAll(() => {
    process.env = saved;
  });
  const appService = (query: string, headers: Record<string, string>) =>
    fetch(`${sim.simulator.url}${APP_SERVICE_TOKEN_PATH}?${query}`, { headers }).then((response) => response.status);

  it('the stand-in checks the secret header, api-version 2019-08-01 and the resource', async () => {
    const good = 'api-version=2019-08-01&resource=https://cognitiveservices.azure.com';
    expect(await appService(good, { 'x-identity-header': SIM_IDENTITY_HEADER })).toBe(200);
    expect(await appService(good, {})).toBe(401);
    expect(await appService(good, { 'x-identity-header': 'wrong' })).toBe(401);
    expect(
      await appService('api-version=2018-02-01&resource=https://cognitiveservices.azure.com', { 'x-identity-header': SIM_IDENTITY_HEADER }),
    ).toBe(400);
    expect(
      await appService('api-version=2019-08-01&resource=https://management.azure.com', { 'x-identity-header': SIM_IDENTITY_HEADER }),
    ).toBe(400);
  });

  it("the system-assigned identity's token is taken by the Azure resource, streamed too", async () => {
    const adapter = managedIdentityAdapter(sim.upstream);
    const answer = await adapter.complete(managedIdentityEndpoint(sim.simulator.url), HELLO, {});
    expect(answer.choices[0]?.message.content).toBeTruthy();
    let chunks = 0;
    for await (const event of await adapter.stream(managedIdentityEndpoint(sim.simulator.url), { ...HELLO, stream: true }, {}))
      if (event.type === 'chunk') chunks += 1;
    expect(chunks).toBeGreaterThan(2);
  });
});
