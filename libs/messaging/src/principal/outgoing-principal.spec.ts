import { headers as natsHeaders } from '@nats-io/transport-node';
import { SUBJECTS, tenancyOf, type Principal } from '@gw/contracts';
import { REQUEST_ID_HEADER, runWithRequestId } from '@gw/telemetry';
import { describe, expect, it } from 'vitest';
import { actingWithGrant, receivedPrincipal, withPrincipal } from './outgoing-principal.js';
import { generatePrincipalKeyPair, principalPublicKeys, principalSigningKey } from './principal-keys.js';
import { PrincipalSigner } from './principal-signer.js';
import { PRINCIPAL_HEADER, readPrincipalClaims, requestPrincipalOf } from './principal-token.js';
import { PrincipalVerifier } from './principal-verifier.js';

const pair = generatePrincipalKeyPair();
const signer = new PrincipalSigner(principalSigningKey(pair.signingKey));
const verifier = new PrincipalVerifier(principalPublicKeys(pair.publicKey));
const principal: Principal = {
  workspaceId: '11111111-1111-4111-8111-111111111111',
  keyHash: 'a'.repeat(64),
  keyKind: 'standard',
  userId: '22222222-2222-4222-8222-222222222222',
  hasPersonalIdentity: false,
};

describe('the principal a call carries', () => {
  it('is signed by the gateway for the request, which gets an id when it has none', () => {
    const data = { principal };
    const withId = natsHeaders();
    withId.set(REQUEST_ID_HEADER, 'req-9');
    const signed = withPrincipal(SUBJECTS.inference.chatStream, data, withId, signer)!;
    expect(() => verifier.verify(SUBJECTS.inference.chatStream, signed, data)).not.toThrow();
    const bare = withPrincipal(SUBJECTS.inference.chatStream, data, undefined, signer)!;
    expect(bare.get(REQUEST_ID_HEADER)).toMatch(/^[0-9a-f-]{36}$/);
    expect(() => verifier.verify(SUBJECTS.inference.chatStream, bare, data)).not.toThrow();
  });

  it('is none on a request acting for no tenant', () => {
    expect(withPrincipal(SUBJECTS.internSigning.daemonJwks, {}, undefined, signer)).toBeUndefined();
  });

  it('is passed on by a service as it came, never signed again', () => {
    runWithRequestId(
      'req-3',
      () => {
        expect(receivedPrincipal()?.token).toBe('token-as-received');
        const headers = withPrincipal(SUBJECTS.management.byokResolve, { workspaceId: principal.workspaceId }, undefined)!;
        expect(headers.get(PRINCIPAL_HEADER)).toBe('token-as-received');
        expect(withPrincipal(SUBJECTS.management.health, {}, undefined)).toBeUndefined();
      },
      requestPrincipalOf('token-as-received'),
    );
    expect(withPrincipal(SUBJECTS.management.byokResolve, { workspaceId: principal.workspaceId }, undefined)).toBeUndefined();
  });

  it('is a batch’s stored grant for the calls of its lines', () => {
    actingWithGrant('grant-of-the-batch', () => {
      expect(withPrincipal(SUBJECTS.inference.chatCreate, { principal }, undefined)!.get(PRINCIPAL_HEADER)).toBe('grant-of-the-batch');
    });
    expect(actingWithGrant(null, () => receivedPrincipal())).toBeUndefined();
  });

  it('is read at most once per request: the nonce its ids are minted from, and whether it is a batch’s grant', () => {
    const token = signer.sign(tenancyOf(SUBJECTS.inference.chatStream)!, { principal }, 'req-4')!;
    const grant = signer.sign(tenancyOf(SUBJECTS.batch.batchesCreate)!, { principal }, 'req-4')!;
    const fields = (received: ReturnType<typeof requestPrincipalOf>) => ({
      token: received.token,
      nonce: received.nonce,
      grant: received.grant,
    });
    expect(fields(requestPrincipalOf(token))).toEqual({ token, nonce: readPrincipalClaims(token)!.n, grant: false });
    expect(requestPrincipalOf(token).nonce).toMatch(/^[0-9a-z]+-[0-9a-f]{20}$/);
    expect(fields(requestPrincipalOf(grant))).toEqual({ token: grant, grant: true, nonce: readPrincipalClaims(grant)!.n });
    // Not a token the gateway wrote: passed on as it came, minting nothing from it.
    expect(fields(requestPrincipalOf('token-as-received'))).toEqual({ token: 'token-as-received', nonce: undefined, grant: false });
    expect(fields(requestPrincipalOf('bm90IGpzb24.c2ln'))).toEqual({ token: 'bm90IGpzb24.c2ln', nonce: undefined, grant: false });
  });
});
