import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

/*
 * Who sees which interns (spec §4.4): the key's workspace is the only one (rule 3, no
 * default-workspace fallback), and an intern's own key sees that intern alone (rule 2).
 * Pure functions, so the rules read in one place.
 */

export const internNotFound = () =>
  new GatewayError(404, 'No intern with that id is visible to this API key', { metadata: { reason: 'not_found', retryable: false } });

export function canSeeIntern(principal: Principal, intern: { id: string; workspaceId: string }): boolean {
  if (intern.workspaceId !== principal.workspaceId) return false;
  return principal.keyKind !== 'intern' || principal.internId === intern.id;
}

/** The collection (list, create): never for an intern's key; only the key's own workspace. */
export function collectionWorkspace(principal: Principal, requested: string | undefined): string {
  if (principal.keyKind === 'intern') {
    throw new GatewayError(404, 'Not found', { metadata: { reason: 'not_found', retryable: false } });
  }
  if (requested !== undefined && requested !== principal.workspaceId) {
    throw new GatewayError(404, 'No workspace with that id is visible to this API key', {
      metadata: { reason: 'not_found', retryable: false },
    });
  }
  return principal.workspaceId;
}

/** Changing or deleting an intern takes a user's key; an intern's own key only reads and signs. */
export function requireWriteAccess(principal: Principal): void {
  if (principal.keyKind === 'intern') {
    throw new GatewayError(403, "An intern's own key cannot change or delete interns", {
      metadata: { reason: 'permission_denied', retryable: false },
    });
  }
}
