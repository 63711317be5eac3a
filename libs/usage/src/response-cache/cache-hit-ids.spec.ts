import { SUBJECTS, tenancyOf, type Principal } from '@gw/contracts';
import {
  generatePrincipalKeyPair,
  generationIdOf,
  PrincipalSigner,
  principalSigningKey,
  readPrincipalClaims,
  requestPrincipalOf,
} from '@gw/messaging';
import { runWithRequestId } from '@gw/telemetry';
import { describe, expect, it } from 'vitest';
import { newGenerationId } from './cache-hit.js';

const signer = new PrincipalSigner(principalSigningKey(generatePrincipalKeyPair().signingKey));
const principal: Principal = {
  workspaceId: '11111111-1111-4111-8111-111111111111',
  keyHash: 'a'.repeat(64),
  keyKind: 'standard',
  userId: '22222222-2222-4222-8222-222222222222',
  hasPersonalIdentity: false,
};
const RANDOM_ID = /^gen-[0-9a-z]{1,11}-[0-9a-f]{20}$/;

describe('newGenerationId: a request’s generations take the slots its principal was signed with', () => {
  it('gives slot 0, 1, 2 ... within a request, the same sequence in a context re-entered with its principal', async () => {
    const token = signer.sign(tenancyOf(SUBJECTS.inference.chatStream)!, { principal }, 'req-1')!;
    const nonce = readPrincipalClaims(token)!.n!;
    const ids = await runWithRequestId(
      'req-1',
      async () => {
        const first = newGenerationId();
        await Promise.resolve();
        const nested = runWithRequestId('req-1', () => newGenerationId(), requestPrincipalOf(token));
        return [first, nested, newGenerationId()];
      },
      requestPrincipalOf(token),
    );
    expect(ids).toEqual([generationIdOf(nonce, 0), generationIdOf(nonce, 1), generationIdOf(nonce, 2)]);
    // Another request of the same caller (its own token, even with the same request id): its own stem.
    const again = runWithRequestId(
      'req-1',
      () => newGenerationId(),
      requestPrincipalOf(signer.sign(tenancyOf(SUBJECTS.inference.chatStream)!, { principal }, 'req-1')!),
    );
    expect(again.endsWith('-0')).toBe(true);
    expect(again).not.toBe(ids[0]);
  });

  it('mints time-ordered random ids under a batch’s grant (many lines share it) and outside a request', () => {
    const grant = signer.sign(tenancyOf(SUBJECTS.batch.batchesCreate)!, { principal }, 'req-0')!;
    const lines = runWithRequestId('line', () => [newGenerationId(), newGenerationId()], requestPrincipalOf(grant));
    for (const id of lines) expect(id).toMatch(RANDOM_ID);
    expect(lines[0]).not.toBe(lines[1]);
    expect(newGenerationId()).toMatch(RANDOM_ID);
  });
});
