import { inboxPrefix, type BusUser, type Principal } from '@gw/contracts';

/** A well-formed standard-key principal for tests that stand in for management. */
export function principalFixture(keyHash: string, overrides: Partial<Principal> = {}): Principal {
  return {
    workspaceId: '11111111-1111-4111-8111-111111111111',
    keyHash,
    keyKind: 'standard',
    userId: '22222222-2222-4222-8222-222222222222',
    internId: null,
    hasPersonalIdentity: false,
    ...overrides,
  };
}

/**
 * A fixed, well-formed `BYOK_KEKS` for tests that start the management service (its
 * environment requires one). Never used outside tests.
 */
export const TEST_BYOK_KEKS = `test-v1:${Buffer.alloc(32, 7).toString('base64')}`;

/**
 * A test that plays one service on an authenticated bus connects with that
 * service's seed and inbox: `ResilientNatsConnection.open({..., auth: busAuth(stack.natsSeeds, 'inference')})`
 * or `connect({..., ...natsAuthOptions(busAuth(...))})` (`@gw/messaging`).
 */
export function busAuth(seeds: Record<BusUser, string>, user: BusUser): { nkeySeed: string; inboxPrefix: string } {
  return { nkeySeed: seeds[user], inboxPrefix: inboxPrefix(user) };
}
