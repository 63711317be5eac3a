import type { Principal } from '@gw/contracts';
import { HIT_GRANT_TTL_MS, type PrincipalSigner } from '@gw/messaging';

/** Keys whose grants are kept at once; the oldest is signed again when a new key comes past it. */
const GRANTS_KEPT = 10_000;

/**
 * The hit grant of each key answering cache hits, signed once and reused for half its life: a hit
 * then pays no signature, and each consumer verifies the grant once (it keeps verified grants).
 */
export class HitGrants {
  private readonly grants = new Map<string, { token: string; renewAt: number }>();

  constructor(private readonly signer: PrincipalSigner) {}

  of(principal: Principal, now = Date.now()): string {
    const id = `${principal.workspaceId}\n${principal.keyHash}\n${principal.keyKind}\n${principal.internId ?? ''}`;
    const kept = this.grants.get(id);
    if (kept && kept.renewAt > now) return kept.token;
    if (kept) this.grants.delete(id);
    else if (this.grants.size >= GRANTS_KEPT) this.grants.delete(this.grants.keys().next().value!);
    const token = this.signer.hitGrant(principal, now);
    this.grants.set(id, { token, renewAt: now + HIT_GRANT_TTL_MS / 2 });
    return token;
  }
}
