import { configureGoogleTokens } from '@gw/provider-simulator';
import { afterAll, describe, expect, it } from 'vitest';
import { simulatorUpstream } from '../../testing/spec-helpers.js';
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
});
