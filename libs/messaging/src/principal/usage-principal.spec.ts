import { tenancyOf, SUBJECTS, type Principal } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { generatePrincipalKeyPair, principalPublicKeys, principalSigningKey } from './principal-keys.js';
import { batchIdOfGrant, generationIdOf, MAX_GENERATIONS_PER_REQUEST } from './generation-ids.js';
import { PrincipalSigner } from './principal-signer.js';
import { readPrincipalClaims } from './principal-token.js';
import { USAGE_PRINCIPAL_WINDOW_MS, UsagePrincipalVerifier, type UsageEventProof } from './usage-principal.js';

const pair = generatePrincipalKeyPair();
const signer = new PrincipalSigner(principalSigningKey(pair.signingKey));
const verifier = new UsagePrincipalVerifier(principalPublicKeys(pair.publicKey));
const stranger = new PrincipalSigner(principalSigningKey(generatePrincipalKeyPair().signingKey));

const principal: Principal = {
  workspaceId: '11111111-1111-4111-8111-111111111111',
  keyHash: 'a'.repeat(64),
  keyKind: 'standard',
  userId: '22222222-2222-4222-8222-222222222222',
  hasPersonalIdentity: false,
};
const CHAT = tenancyOf(SUBJECTS.inference.chatStream)!;
const GRANT = tenancyOf(SUBJECTS.batch.batchesCreate)!;
const signedAt = Date.now();
const token = signer.sign(CHAT, { principal }, 'req-1', signedAt)!;
const grant = signer.sign(GRANT, { principal }, 'req-0', signedAt)!;
const nonceOf = (token: string) => readPrincipalClaims(token)!.n!;
const nonce = nonceOf(token);
const batchId = batchIdOfGrant(nonceOf(grant));
const event = (overrides: Partial<UsageEventProof> = {}): UsageEventProof => ({
  generationId: generationIdOf(nonce, 0),
  workspaceId: principal.workspaceId,
  keyHash: principal.keyHash,
  requestId: 'req-1',
  principal: token,
  ...overrides,
});

describe('UsagePrincipalVerifier: a usage event is billed only with the gateway’s proof for its workspace and request', () => {
  it('takes the principal of the request that made the generation, however late it is consumed', () => {
    expect(verifier.refusal(event(), signedAt + 1_000)).toBeUndefined();
    // A redelivery after an outage, a dead letter replayed weeks later: JetStream's receive time of the replay.
    expect(verifier.refusal(event(), signedAt + 29 * 24 * 3_600_000)).toBeUndefined();
  });

  it('refuses an event without one, or with one signed by another key or altered', () => {
    expect(verifier.refusal(event({ principal: undefined }), signedAt)).toBe('usage_principal_missing');
    const strangers = stranger.sign(CHAT, { principal }, 'req-1')!;
    const strangersId = generationIdOf(nonceOf(strangers), 0);
    expect(verifier.refusal(event({ principal: strangers, generationId: strangersId }), signedAt)).toBe('usage_principal_forged');
    const [body, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    const other = '33333333-3333-4333-8333-333333333333';
    const altered = `${Buffer.from(JSON.stringify({ ...claims, w: other })).toString('base64url')}.${signature}`;
    expect(verifier.refusal(event({ workspaceId: other, principal: altered }), signedAt)).toBe('usage_principal_forged');
  });

  it('refuses an event billing another workspace or key than the principal names', () => {
    expect(verifier.refusal(event({ workspaceId: '33333333-3333-4333-8333-333333333333' }), signedAt)).toBe('usage_principal_other_tenant');
    expect(verifier.refusal(event({ keyHash: 'b'.repeat(64) }), signedAt)).toBe('usage_principal_other_tenant');
    const operator = signer.sign(tenancyOf(SUBJECTS.inference.adminCatalogChange)!, {}, 'req-1')!;
    expect(verifier.refusal(event({ workspaceId: '', keyHash: '', principal: operator }), signedAt)).toBe('usage_principal_other_tenant');
  });

  it('refuses a principal replayed on an event of another request', () => {
    expect(verifier.refusal(event({ requestId: 'req-2' }), signedAt)).toBe('usage_principal_other_request');
    expect(verifier.refusal(event({ requestId: undefined }), signedAt)).toBe('usage_principal_other_request');
  });

  it('takes a batch’s grant on a batch’s line or charge only', () => {
    expect(verifier.refusal(event({ principal: grant, requestId: 'line-7', batchId, generationId: 'gen-x-1' }), signedAt)).toBeUndefined();
    expect(
      verifier.refusal(event({ principal: grant, requestId: undefined, kind: 'batch_charge', generationId: batchId }), signedAt),
    ).toBeUndefined();
    expect(verifier.refusal(event({ principal: grant, requestId: 'req-9' }), signedAt)).toBe('usage_principal_grant_not_batch');
  });

  it('bills a request’s generations only in its slots, each id once: a new generation id under a real token is refused', () => {
    for (const slot of [1, 30, MAX_GENERATIONS_PER_REQUEST - 1])
      expect(verifier.refusal(event({ generationId: generationIdOf(nonce, slot) }), signedAt)).toBeUndefined();
    const outside = [
      'gen-forged-1',
      `gen-${Date.now().toString(36)}-0123456789abcdef0123`,
      generationIdOf(nonce, MAX_GENERATIONS_PER_REQUEST),
      // The same slot spelt twice would be two ledger rows: only the canonical spelling is a slot.
      `gen-${nonce}-00`,
      `gen-${nonce}-0 `,
      `gen-${nonce}--1`,
      `gen-${nonce}`,
      // Another request's slot under this request's token.
      generationIdOf(nonceOf(signer.sign(CHAT, { principal }, 'req-1')!), 0),
    ];
    for (const generationId of outside)
      expect(verifier.refusal(event({ generationId }), signedAt), generationId).toBe('usage_principal_other_generation');
  });

  it('bills a grant’s charge once, under the id of the batch it was signed for, and its lines only in that batch', () => {
    const charge = (generationId: string) => event({ principal: grant, requestId: undefined, kind: 'batch_charge', generationId });
    expect(verifier.refusal(charge('batch_0123456789abcdef0123456789abcdef'), signedAt)).toBe('usage_principal_other_generation');
    const another = batchIdOfGrant(nonceOf(signer.sign(GRANT, { principal }, 'req-0')!));
    expect(verifier.refusal(charge(another), signedAt)).toBe('usage_principal_other_generation');
    expect(verifier.refusal(event({ principal: grant, batchId: another, generationId: 'gen-x-2' }), signedAt)).toBe(
      'usage_principal_other_generation',
    );
  });

  it('takes a key’s hit grant on that key’s response-cache hits only (nothing paid upstream, no batch)', () => {
    const hit = signer.hitGrant(principal, signedAt);
    const cached = event({ principal: hit, requestId: 'req-5', cacheHit: true, upstreamCost: '0', cost: '0' });
    expect(verifier.refusal(cached, signedAt)).toBeUndefined();
    expect(verifier.refusal({ ...cached, requestId: 'req-6' }, signedAt)).toBeUndefined();
    expect(verifier.refusal({ ...cached, cacheHit: undefined }, signedAt)).toBe('usage_principal_grant_not_hit');
    expect(verifier.refusal({ ...cached, upstreamCost: '0.002' }, signedAt)).toBe('usage_principal_grant_not_hit');
    expect(verifier.refusal({ ...cached, cost: '0.0001' }, signedAt)).toBe('usage_principal_grant_not_hit');
    expect(verifier.refusal({ ...cached, batchId: 'batch_1' }, signedAt)).toBe('usage_principal_grant_not_hit');
    expect(verifier.refusal({ ...cached, kind: 'batch_charge' }, signedAt)).toBe('usage_principal_grant_not_hit');
    expect(verifier.refusal({ ...cached, keyHash: 'c'.repeat(64) }, signedAt)).toBe('usage_principal_other_tenant');
    expect(verifier.refusal({ ...cached, principal: stranger.hitGrant(principal, signedAt) }, signedAt)).toBe('usage_principal_forged');
  });

  it('refuses an event stored longer after its principal expired than a dead letter is kept', () => {
    const expiry = signedAt + 30_000;
    expect(verifier.refusal(event(), expiry + USAGE_PRINCIPAL_WINDOW_MS)).toBeUndefined();
    expect(verifier.refusal(event(), expiry + USAGE_PRINCIPAL_WINDOW_MS + 1)).toBe('usage_principal_stale');
  });

  it('gives a remembered grant the same answer (its signature is verified once, its binding every time)', () => {
    const line = event({ principal: grant, requestId: undefined, batchId });
    expect(verifier.refusal(line, signedAt)).toBeUndefined();
    expect(verifier.refusal(line, signedAt)).toBeUndefined();
    expect(verifier.refusal({ ...line, keyHash: 'c'.repeat(64) }, signedAt)).toBe('usage_principal_other_tenant');
    expect(verifier.refusal({ ...line, batchId: undefined }, signedAt)).toBe('usage_principal_grant_not_batch');
  });
});
