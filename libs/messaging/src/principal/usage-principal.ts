import type { KeyObject } from 'node:crypto';
import { batchIdOfGrant, isGenerationOf } from './generation-ids.js';
import { principalPublicKeys } from './principal-keys.js';
import { openPrincipal, type PrincipalClaims } from './principal-token.js';

/** Why a usage event was not counted: the reason its dead letter and log line carry. */
export type UsageRefusal =
  | 'usage_principal_missing'
  | 'usage_principal_forged'
  | 'usage_principal_other_tenant'
  | 'usage_principal_other_request'
  | 'usage_principal_grant_not_batch'
  | 'usage_principal_other_generation'
  | 'usage_principal_grant_not_hit'
  | 'usage_principal_stale';

/**
 * How long after its principal expired a usage event may have been stored in JetStream: the
 * 30 days dead letters are kept (a replay republishes the original bytes) and a day more for an
 * idempotent retry republishing its stored events. Binding, not freshness, is what is checked.
 */
export const USAGE_PRINCIPAL_WINDOW_MS = 31 * 24 * 3_600_000;

/** What of a usage event its principal must match (a `UsageRecordedEvent` has these). */
export interface UsageEventProof {
  generationId: string;
  workspaceId: string;
  keyHash: string;
  requestId?: string;
  batchId?: string;
  kind?: string;
  /** A hit grant is taken only on a response-cache hit's event that costs nothing, paid and charged. */
  cacheHit?: boolean;
  upstreamCost?: string;
  cost?: string;
  /** The `Gw-Principal` token of the request that made the generation, or the batch's grant. */
  principal?: string;
}

/**
 * Batch and hit grants already verified, by their text: one is on thousands of events, and a
 * token's signature never changes. A request's token is on its own events only, so it is not kept.
 */
const GRANTS_KEPT = 1_024;

/**
 * Checks that the gateway authorised the event's workspace and key for the request it names:
 * the token is one the gateway signed, for that workspace and key, and either for the event's
 * request id, the generation one of that request's slots (`gen-<nonce>-<slot>`), or a batch's
 * grant on a batch's line or on the charge of the one batch the grant made; stored within the
 * window of its expiry (`storedAtMs`: JetStream's receive time, which no publisher writes).
 * With the consumers' exactly-once stores (one row per generation id), a token bills at most
 * its request's slots, each once, and a grant its batch's charge once.
 */
export class UsagePrincipalVerifier {
  /** A grant's claims and the id of its batch (a hash, worked out once per grant). */
  private readonly grants = new Map<string, PrincipalClaims & { batch?: string }>();

  constructor(private readonly keys: readonly KeyObject[]) {
    if (keys.length === 0) throw new Error('At least one principal public key is required');
  }

  /** From BUS_PRINCIPAL_PUBLIC_KEYS, like `PrincipalVerifier.fromEnv`: none on a bus without credentials, where nothing is checked. */
  static fromEnv(env: { BUS_PRINCIPAL_PUBLIC_KEYS?: string }): UsagePrincipalVerifier | undefined {
    const keys = env.BUS_PRINCIPAL_PUBLIC_KEYS ? principalPublicKeys(env.BUS_PRINCIPAL_PUBLIC_KEYS) : [];
    return keys.length > 0 ? new UsagePrincipalVerifier(keys) : undefined;
  }

  /** The refusal, or undefined when the event may be counted. */
  refusal(event: UsageEventProof, storedAtMs: number): UsageRefusal | undefined {
    if (!event.principal) return 'usage_principal_missing';
    const claims = this.open(event.principal);
    if (!claims) return 'usage_principal_forged';
    if (claims.w === '' || claims.w !== event.workspaceId || claims.k !== event.keyHash) return 'usage_principal_other_tenant';
    if (claims.h) {
      // A hit grant serves any request of its key, so it may bill nothing: priced hits carry their request's token.
      if (
        event.cacheHit !== true ||
        event.upstreamCost !== '0' ||
        Number(event.cost) !== 0 ||
        event.batchId ||
        event.kind === 'batch_charge'
      )
        return 'usage_principal_grant_not_hit';
    } else if (claims.g) {
      if (event.kind === 'batch_charge') {
        if (!claims.batch || event.generationId !== claims.batch) return 'usage_principal_other_generation';
      } else if (!event.batchId) return 'usage_principal_grant_not_batch';
      else if (claims.batch && event.batchId !== claims.batch) return 'usage_principal_other_generation';
    } else if (!claims.r || claims.r !== event.requestId) {
      return 'usage_principal_other_request';
    } else if (!claims.n || !isGenerationOf(event.generationId, claims.n)) {
      return 'usage_principal_other_generation';
    }
    if (storedAtMs > claims.e + USAGE_PRINCIPAL_WINDOW_MS) return 'usage_principal_stale';
    return undefined;
  }

  private open(token: string): (PrincipalClaims & { batch?: string }) | undefined {
    const known = this.grants.get(token);
    if (known) return known;
    const claims = openPrincipal(token, this.keys);
    if (!claims?.g && !claims?.h) return claims;
    if (this.grants.size >= GRANTS_KEPT) this.grants.delete(this.grants.keys().next().value!);
    const grant = claims.n ? { ...claims, batch: batchIdOfGrant(claims.n) } : claims;
    this.grants.set(token, grant);
    return grant;
  }
}
