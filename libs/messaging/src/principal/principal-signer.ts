import type { KeyObject } from 'node:crypto';
import type { Principal, Tenancy } from '@gw/contracts';
import { newPrincipalNonce } from './generation-ids.js';
import { principalSigningKey } from './principal-keys.js';
import { signPrincipal, type PrincipalClaims } from './principal-token.js';

/**
 * A principal's life on the bus: covers a resend after the caller's liveness timeout and a
 * service's calls before its first provider call.
 */
export const DEFAULT_PRINCIPAL_TTL_MS = 30_000;
/** A batch grant's: the longest completion window and the time its last lines may take after it. */
export const BATCH_GRANT_TTL_MS = 26 * 3_600_000;
/** A hit grant's: the gateway signs one per key this often at most, the consumers verify each once. */
export const HIT_GRANT_TTL_MS = 10 * 60_000;

/**
 * The gateway's half: after authenticating a key, every request it sends that acts for a tenant
 * carries the principal signed for that request (`MESSAGE_TENANCY` says which and for whom).
 */
export class PrincipalSigner {
  constructor(
    private readonly key: KeyObject,
    private readonly ttlMs = DEFAULT_PRINCIPAL_TTL_MS,
  ) {}

  /** From BUS_PRINCIPAL_SIGNING_KEY; none on a bus without credentials (int tests). */
  static fromEnv(env: { BUS_PRINCIPAL_SIGNING_KEY?: string; BUS_PRINCIPAL_TTL_MS?: number }): PrincipalSigner | undefined {
    return env.BUS_PRINCIPAL_SIGNING_KEY
      ? new PrincipalSigner(principalSigningKey(env.BUS_PRINCIPAL_SIGNING_KEY), env.BUS_PRINCIPAL_TTL_MS)
      : undefined;
  }

  /** The token for a request of this tenancy, or undefined when it acts for nobody (or carries no principal). */
  sign(tenancy: Tenancy, data: unknown, requestId: string, now = Date.now()): string | undefined {
    if (tenancy.actsFor === 'operator' || tenancy.actsFor === 'gateway')
      return signPrincipal({ w: '', k: '', t: tenancy.actsFor, r: requestId, e: now + this.ttlMs }, this.key);
    if (tenancy.actsFor !== 'principal') return undefined;
    const principal = (data as { principal?: Principal } | null)?.principal;
    if (!principal) return undefined;
    const claims: PrincipalClaims = {
      w: principal.workspaceId,
      k: principal.keyHash,
      t: principal.keyKind,
      e: 0,
      n: newPrincipalNonce(now),
    };
    if (principal.keyKind === 'intern' && principal.internId) claims.i = principal.internId;
    if (tenancy.issuesGrant) {
      claims.g = 1;
      claims.e = now + BATCH_GRANT_TTL_MS;
    } else {
      claims.r = requestId;
      claims.e = now + this.ttlMs;
    }
    return signPrincipal(claims, this.key);
  }

  /**
   * The grant the usage events of the key's response-cache hits carry: bound to no request, so one
   * signature (and one check per consumer) serves every hit of the key for `HIT_GRANT_TTL_MS`.
   */
  hitGrant(principal: Principal, now = Date.now()): string {
    const claims: PrincipalClaims = {
      w: principal.workspaceId,
      k: principal.keyHash,
      t: principal.keyKind,
      h: 1,
      e: now + HIT_GRANT_TTL_MS,
    };
    if (principal.keyKind === 'intern' && principal.internId) claims.i = principal.internId;
    return signPrincipal(claims, this.key);
  }
}
