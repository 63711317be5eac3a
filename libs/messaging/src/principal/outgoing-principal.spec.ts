import { headers as natsHeaders } from '@nats-io/transport-node';
import { SUBJECTS, type Principal } from '@gw/contracts';
import { REQUEST_ID_HEADER, runWithRequestId } from '@gw/telemetry';
import { describe, expect, it } from 'vitest';
import { actingWithGrant, receivedPrincipal, withPrincipal } from './outgoing-principal.js';
import { generatePrincipalKeyPair, principalPublicKeys, principalSigningKey } from './principal-keys.js';
import { PrincipalSigner } from './principal-signer.js';
import { PRINCIPAL_HEADER } from './principal-token.js';
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
        expect(receivedPrincipal()).toBe('token-as-received');
        const headers = withPrincipal(SUBJECTS.management.byokResolve, { workspaceId: principal.workspaceId }, undefined)!;
        expect(headers.get(PRINCIPAL_HEADER)).toBe('token-as-received');
        expect(withPrincipal(SUBJECTS.management.health, {}, undefined)).toBeUndefined();
      },
      'token-as-received',
    );
    expect(withPrincipal(SUBJECTS.management.byokResolve, { workspaceId: principal.workspaceId }, undefined)).toBeUndefined();
  });

  it('is a batch’s stored grant for the calls of its lines', () => {
    actingWithGrant('grant-of-the-batch', () => {
      expect(withPrincipal(SUBJECTS.inference.chatCreate, { principal }, undefined)!.get(PRINCIPAL_HEADER)).toBe('grant-of-the-batch');
    });
    expect(actingWithGrant(null, () => receivedPrincipal())).toBeUndefined();
  });
});
