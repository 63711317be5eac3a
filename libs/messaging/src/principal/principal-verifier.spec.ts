import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { SUBJECTS, tenancyOf, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { REQUEST_ID_HEADER } from '@gw/telemetry';
import { describe, expect, it } from 'vitest';
import { generatePrincipalKeyPair, principalPublicKeys, principalSigningKey } from './principal-keys.js';
import { PrincipalSigner } from './principal-signer.js';
import { signPrincipal, PRINCIPAL_HEADER } from './principal-token.js';
import { isPrincipalRefusal, PrincipalVerifier } from './principal-verifier.js';

const pair = generatePrincipalKeyPair();
const signer = new PrincipalSigner(principalSigningKey(pair.signingKey));
const verifier = new PrincipalVerifier(principalPublicKeys(pair.publicKey));
const stranger = new PrincipalSigner(principalSigningKey(generatePrincipalKeyPair().signingKey));

const principal: Principal = {
  workspaceId: '11111111-1111-4111-8111-111111111111',
  keyHash: 'a'.repeat(64),
  keyKind: 'management',
  userId: '22222222-2222-4222-8222-222222222222',
  hasPersonalIdentity: false,
};
const other: Principal = { ...principal, workspaceId: '33333333-3333-4333-8333-333333333333' };
const KEYS_LIST = SUBJECTS.management.keysList;

function headersOf(token: string | undefined, requestId = 'req-1'): MsgHdrs {
  const headers = natsHeaders();
  headers.set(REQUEST_ID_HEADER, requestId);
  if (token) headers.set(PRINCIPAL_HEADER, token);
  return headers;
}

const sign = (subject: string, data: unknown, requestId = 'req-1', by = signer) => by.sign(tenancyOf(subject)!, data, requestId)!;

function reasonOf(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect(isPrincipalRefusal(error)).toBe(true);
    return String((error as GatewayError).metadata?.reason);
  }
}

describe('PrincipalVerifier: a request acting for a tenant needs the principal the gateway signed for it', () => {
  const data = { principal, offset: 0 };

  it('takes the gateway’s principal for this request and this workspace', () => {
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(sign(KEYS_LIST, data)), data))).toBeUndefined();
  });

  it('refuses a request without one', () => {
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(undefined), data))).toBe('principal_missing');
    expect(reasonOf(() => verifier.verify(KEYS_LIST, undefined, data))).toBe('principal_missing');
  });

  it('refuses one signed by another key, or altered', () => {
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(sign(KEYS_LIST, data, 'req-1', stranger)), data))).toBe('principal_forged');
    const token = sign(KEYS_LIST, data);
    const [body, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    const altered = `${Buffer.from(JSON.stringify({ ...claims, w: other.workspaceId })).toString('base64url')}.${signature}`;
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(altered), { principal: other }))).toBe('principal_forged');
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf('not-a-token'), data))).toBe('principal_forged');
  });

  it('refuses an expired one', () => {
    const token = signer.sign(tenancyOf(KEYS_LIST)!, data, 'req-1', Date.now() - 31_000)!;
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(token), data))).toBe('principal_expired');
  });

  it('refuses one replayed with another request id', () => {
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(sign(KEYS_LIST, data, 'req-1'), 'req-2'), data))).toBe(
      'principal_other_request',
    );
  });

  it('refuses a payload acting for another workspace, key or kind than the one signed', () => {
    const token = sign(KEYS_LIST, data);
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(token), { principal: other }))).toBe('principal_other_tenant');
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(token), { principal: { ...principal, keyHash: 'b'.repeat(64) } }))).toBe(
      'principal_other_tenant',
    );
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(token), { principal: { ...principal, keyKind: 'standard' } }))).toBe(
      'principal_other_tenant',
    );
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(token), {}))).toBe('principal_other_tenant');
  });

  it('takes a service’s call for the workspace of the request it serves, and no other', () => {
    const token = sign(KEYS_LIST, data);
    const byok = SUBJECTS.management.byokResolve;
    expect(reasonOf(() => verifier.verify(byok, headersOf(token), { workspaceId: principal.workspaceId }))).toBeUndefined();
    expect(reasonOf(() => verifier.verify(byok, headersOf(token), { workspaceId: other.workspaceId }))).toBe('principal_other_tenant');
    const spend = SUBJECTS.management.spendReserve;
    expect(reasonOf(() => verifier.verify(spend, headersOf(token), { workspaceId: principal.workspaceId, keyHash: 'c'.repeat(64) }))).toBe(
      'principal_other_tenant',
    );
  });

  it('takes a batch grant only where a batch calls, whatever the request id', () => {
    const grant = sign(SUBJECTS.batch.batchesCreate, data);
    expect(reasonOf(() => verifier.verify(SUBJECTS.inference.chatCreate, headersOf(grant, 'line-7'), data))).toBeUndefined();
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(grant), data))).toBe('principal_grant_not_taken');
  });

  it('never takes a hit grant as a request’s principal, not even on a request without an id', () => {
    const hit = signer.hitGrant(principal);
    expect(reasonOf(() => verifier.verify(SUBJECTS.inference.chatCreate, headersOf(hit, ''), data))).toBe('principal_grant_not_taken');
    expect(reasonOf(() => verifier.verify(SUBJECTS.inference.chatCreate, headersOf(hit), data))).toBe('principal_grant_not_taken');
  });

  it('tells the operator from a workspace', () => {
    const admin = SUBJECTS.inference.adminCatalogChange;
    expect(reasonOf(() => verifier.verify(admin, headersOf(sign(admin, {})), {}))).toBeUndefined();
    expect(reasonOf(() => verifier.verify(admin, headersOf(sign(KEYS_LIST, data)), {}))).toBe('principal_other_tenant');
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(sign(admin, {})), data))).toBe('principal_other_tenant');
  });

  it('takes the gateway’s own signature, and only it, where it acts before any key', () => {
    const resolve = SUBJECTS.management.authResolve;
    const lookup = { keyHash: 'a'.repeat(64) };
    expect(reasonOf(() => verifier.verify(resolve, headersOf(sign(resolve, lookup)), lookup))).toBeUndefined();
    expect(reasonOf(() => verifier.verify(resolve, headersOf(undefined), lookup))).toBe('principal_missing');
    expect(reasonOf(() => verifier.verify(resolve, headersOf(sign(KEYS_LIST, data)), lookup))).toBe('principal_other_tenant');
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(sign(resolve, lookup)), data))).toBe('principal_other_tenant');
  });

  it('asks nothing of a request its declaration says acts for no tenant', () => {
    expect(reasonOf(() => verifier.verify(SUBJECTS.management.health, undefined, {}))).toBeUndefined();
  });

  it('refuses a subject no tenancy declares, even with a good principal for it (fails closed)', () => {
    const undeclared = 'management.keys.export-all';
    expect(tenancyOf(undeclared)).toBeUndefined();
    expect(reasonOf(() => verifier.verify(undeclared, undefined, {}))).toBe('principal_undeclared_subject');
    // The token is genuine, for this request and this workspace: only the missing declaration refuses it.
    expect(reasonOf(() => verifier.verify(undeclared, headersOf(sign(KEYS_LIST, data)), data))).toBe('principal_undeclared_subject');
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(
        reasonOf(() => verifier.verify(name, headersOf(sign(KEYS_LIST, data)), data)),
        name,
      ).toBe('principal_undeclared_subject');
    }
  });

  it('verifies with any of the keys it holds while the gateway’s key rotates', () => {
    const rotated = new PrincipalVerifier([
      ...principalPublicKeys(generatePrincipalKeyPair().publicKey),
      ...principalPublicKeys(pair.publicKey),
    ]);
    expect(reasonOf(() => rotated.verify(KEYS_LIST, headersOf(sign(KEYS_LIST, data)), data))).toBeUndefined();
  });

  it('reads tokens signed by hand the same way (the wire format)', () => {
    const token = signPrincipal(
      { w: principal.workspaceId, k: principal.keyHash, t: 'management', r: 'req-1', e: Date.now() + 5_000 },
      principalSigningKey(pair.signingKey),
    );
    expect(reasonOf(() => verifier.verify(KEYS_LIST, headersOf(token), data))).toBeUndefined();
  });
});
