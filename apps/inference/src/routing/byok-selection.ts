import type { ResolvedByokCredential } from '@gw/contracts';
import { hasGatewayCredential } from '../catalog/catalog.schema.js';
import type { AttemptCredential, RouteCandidate } from './route-types.js';

/** Who is asking, as far as BYOK allow-lists care. */
export interface CredentialRequester {
  keyHash: string;
  userId: string;
}

/**
 * A credential applies to a call when it is for the endpoint's provider and every allow-list
 * it has (API key hashes, models, user ids; null = unrestricted) admits the request. Models
 * match by public id or by the provider's own model name. Disabled credentials never reach
 * inference (management resolves enabled ones only).
 */
export function credentialAdmits(
  credential: ResolvedByokCredential,
  candidate: Pick<RouteCandidate, 'modelId' | 'endpoint'>,
  requester: CredentialRequester,
): boolean {
  if (credential.provider !== candidate.endpoint.provider.id) return false;
  if (credential.allowedApiKeyHashes && !credential.allowedApiKeyHashes.includes(requester.keyHash)) return false;
  if (credential.allowedUserIds && !credential.allowedUserIds.includes(requester.userId)) return false;
  if (
    credential.allowedModels &&
    !credential.allowedModels.includes(candidate.modelId) &&
    !credential.allowedModels.includes(candidate.endpoint.upstreamModel)
  ) {
    return false;
  }
  return true;
}

/**
 * The keys to try on one endpoint, in order (OpenRouter's BYOK priority, ADR routing):
 * 1. the workspace's prioritized credentials (not `is_fallback`), by `sort_order`;
 * 2. the gateway's own provider key, unless an admitted credential is `is_byok_only`
 *    or the gateway has no key for that provider;
 * 3. the `is_fallback` credentials, by `sort_order`: used only after the others.
 */
export function credentialsFor(
  candidate: RouteCandidate,
  credentials: readonly ResolvedByokCredential[],
  requester: CredentialRequester,
): AttemptCredential[] {
  const admitted = credentials.filter((credential) => credentialAdmits(credential, candidate, requester)).sort(bySortOrder);
  const prioritized = admitted.filter((credential) => !credential.isFallback);
  const fallbacks = admitted.filter((credential) => credential.isFallback);
  const byokOnly = admitted.some((credential) => credential.isByokOnly);
  const gatewayHasKey = hasGatewayCredential(candidate.endpoint.provider);
  return [
    ...prioritized.map(toAttemptCredential),
    ...(byokOnly || !gatewayHasKey ? [] : [{ kind: 'gateway' } as const]),
    ...fallbacks.map(toAttemptCredential),
  ];
}

function bySortOrder(a: ResolvedByokCredential, b: ResolvedByokCredential): number {
  return a.sortOrder - b.sortOrder || a.id.localeCompare(b.id);
}

function toAttemptCredential(credential: ResolvedByokCredential): AttemptCredential {
  return { kind: 'byok', credentialId: credential.id, apiKey: credential.apiKey };
}
