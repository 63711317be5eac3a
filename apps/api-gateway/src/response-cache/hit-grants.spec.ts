import type { Principal } from '@gw/contracts';
import {
  generatePrincipalKeyPair,
  HIT_GRANT_TTL_MS,
  PrincipalSigner,
  principalPublicKeys,
  principalSigningKey,
  UsagePrincipalVerifier,
} from '@gw/messaging';
import { describe, expect, it } from 'vitest';
import { HitGrants } from './hit-grants.js';

const pair = generatePrincipalKeyPair();
const verifier = new UsagePrincipalVerifier(principalPublicKeys(pair.publicKey));
const principal: Principal = {
  workspaceId: '11111111-1111-4111-8111-111111111111',
  keyHash: 'a'.repeat(64),
  keyKind: 'standard',
  userId: '22222222-2222-4222-8222-222222222222',
  hasPersonalIdentity: false,
};
const hitOf = (token: string, who = principal) => ({
  generationId: 'gen-hit-1',
  workspaceId: who.workspaceId,
  keyHash: who.keyHash,
  requestId: 'req-1',
  cacheHit: true,
  upstreamCost: '0',
  cost: '0',
  principal: token,
});

describe('HitGrants: one signed grant per key serves its hits for half the grant’s life', () => {
  it('reuses a key’s grant until half its life has passed, then signs a new one the consumers take', () => {
    const grants = new HitGrants(new PrincipalSigner(principalSigningKey(pair.signingKey)));
    const start = Date.now();
    const first = grants.of(principal, start);
    expect(grants.of(principal, start + HIT_GRANT_TTL_MS / 2 - 1)).toBe(first);
    const renewed = grants.of(principal, start + HIT_GRANT_TTL_MS / 2);
    expect(renewed).not.toBe(first);
    expect(verifier.refusal(hitOf(first), start)).toBeUndefined();
    expect(verifier.refusal(hitOf(renewed), start + HIT_GRANT_TTL_MS / 2)).toBeUndefined();
  });

  it('gives each key its own grant, never another key’s', () => {
    const grants = new HitGrants(new PrincipalSigner(principalSigningKey(pair.signingKey)));
    const other: Principal = { ...principal, keyHash: 'b'.repeat(64) };
    const token = grants.of(other);
    expect(token).not.toBe(grants.of(principal));
    expect(verifier.refusal(hitOf(token, other), Date.now())).toBeUndefined();
    expect(verifier.refusal({ ...hitOf(token, other), keyHash: principal.keyHash }, Date.now())).toBe('usage_principal_other_tenant');
  });
});
