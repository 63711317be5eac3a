import type { KeyObject } from 'node:crypto';
import type { MsgHdrs } from '@nats-io/transport-node';
import { tenancyOf, type Tenancy } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { REQUEST_ID_HEADER } from '@gw/telemetry';
import { principalPublicKeys } from './principal-keys.js';
import { openPrincipal, PRINCIPAL_HEADER, type PrincipalClaims } from './principal-token.js';

/** Why a request's principal was refused: `metadata.reason` of the 403. */
export type PrincipalRefusal =
  | 'principal_missing'
  | 'principal_forged'
  | 'principal_expired'
  | 'principal_other_request'
  | 'principal_grant_not_taken'
  | 'principal_other_tenant'
  /** The subject is in no tenancy declaration: refused rather than served unchecked. */
  | 'principal_undeclared_subject';

const REFUSALS = new Set<string>([
  'principal_missing',
  'principal_forged',
  'principal_expired',
  'principal_other_request',
  'principal_grant_not_taken',
  'principal_other_tenant',
  'principal_undeclared_subject',
]);

/** A service's refusal of a request's principal: the gateway answers its client 500 (its own call failed). */
export function isPrincipalRefusal(error: unknown): boolean {
  return error instanceof GatewayError && error.status === 403 && REFUSALS.has(String(error.metadata?.reason));
}

/**
 * Checks that a request acting for a tenant carries a principal the gateway signed, for this
 * request, not expired, naming the tenant its payload acts for (`MESSAGE_TENANCY`); a subject
 * that table does not declare is refused. One Ed25519 verification per request; nothing is
 * cached, so a refusal never depends on an earlier message.
 */
export class PrincipalVerifier {
  constructor(private readonly keys: readonly KeyObject[]) {
    if (keys.length === 0) throw new Error('At least one principal public key is required');
  }

  /** From BUS_PRINCIPAL_PUBLIC_KEYS; none on a bus without credentials (int tests), where nothing is checked. */
  static fromEnv(env: { BUS_PRINCIPAL_PUBLIC_KEYS?: string }): PrincipalVerifier | undefined {
    const keys = env.BUS_PRINCIPAL_PUBLIC_KEYS ? principalPublicKeys(env.BUS_PRINCIPAL_PUBLIC_KEYS) : [];
    return keys.length > 0 ? new PrincipalVerifier(keys) : undefined;
  }

  /** Throws the 403 of `PrincipalRefusal` unless `data` may be acted on for the request `headers` came with. */
  verify(subject: string, headers: MsgHdrs | undefined, data: unknown, now = Date.now()): void {
    const tenancy = tenancyOf(subject);
    // Fail closed: a request nobody declared may act for any tenant, so it is refused, not waved through.
    if (!tenancy) throw refused('principal_undeclared_subject', subject);
    if (tenancy.actsFor === 'none') return;
    const token = headers?.get(PRINCIPAL_HEADER);
    if (!token) throw refused('principal_missing', subject);
    const claims = openPrincipal(token, this.keys);
    if (!claims) throw refused('principal_forged', subject);
    if (claims.e <= now) throw refused('principal_expired', subject);
    // A hit grant proves a cached answer's usage event, never a request.
    if (claims.h) throw refused('principal_grant_not_taken', subject);
    if (claims.g) {
      if (!tenancy.batchGrant) throw refused('principal_grant_not_taken', subject);
    } else if ((claims.r ?? '') !== (headers!.get(REQUEST_ID_HEADER) ?? '')) {
      throw refused('principal_other_request', subject);
    }
    if (!names(tenancy, claims, data)) throw refused('principal_other_tenant', subject);
  }
}

/** Whether the payload acts for the tenant the claims name. */
function names(tenancy: Tenancy, claims: PrincipalClaims, data: unknown): boolean {
  const payload = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  switch (tenancy.actsFor) {
    case 'operator':
    case 'gateway':
      return claims.t === tenancy.actsFor;
    case 'request':
      return claims.w !== '';
    case 'workspace':
      return claims.w !== '' && payload.workspaceId === claims.w && (typeof payload.keyHash !== 'string' || payload.keyHash === claims.k);
    case 'principal': {
      const principal = payload.principal as Record<string, unknown> | undefined;
      if (typeof principal !== 'object' || principal === null) return false;
      return (
        principal.workspaceId === claims.w &&
        principal.keyHash === claims.k &&
        principal.keyKind === claims.t &&
        (claims.t !== 'intern' || (principal.internId ?? '') === (claims.i ?? ''))
      );
    }
    case 'none':
      return true;
    default:
      return false;
  }
}

function refused(reason: PrincipalRefusal, subject: string): GatewayError {
  return GatewayError.forbidden(`${subject} refused: its principal is not one the gateway signed for this request and tenant`, {
    reason,
  });
}
