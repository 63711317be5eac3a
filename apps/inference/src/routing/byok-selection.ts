import type { ResolvedByokCredential } from '@gw/contracts';
import { gatewayHoldsKey } from '../catalog/catalog-snapshot.js';
import { weightedOrder, type RandomSource } from './endpoint-balance.js';
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
  return credential.provider === candidate.endpoint.provider.id && allowListsAdmit(credential, candidate, requester);
}

function allowListsAdmit(
  credential: ResolvedByokCredential,
  candidate: Pick<RouteCandidate, 'modelId' | 'endpoint'>,
  requester: CredentialRequester,
): boolean {
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
 * 2. the gateway's own provider key (or the endpoint's keys, by weight), unless an admitted
 *    credential is `is_byok_only` or the gateway has no key for that provider;
 * 3. the `is_fallback` credentials, by `sort_order`: used only after the others.
 * A workspace's own endpoint is called with the credentials it is bound to only, drawn by their
 * weights, each still held to its allow-lists (a disabled or deleted one is simply absent).
 */
export function credentialsFor(
  candidate: RouteCandidate,
  credentials: readonly ResolvedByokCredential[],
  requester: CredentialRequester,
  random: RandomSource = Math.random,
): AttemptCredential[] {
  const bound = candidate.endpoint.boundCredentials;
  if (bound) {
    const byId = new Map(credentials.map((credential) => [credential.id, credential]));
    const usable = bound.filter((entry) => {
      const credential = byId.get(entry.credentialId);
      return credential !== undefined && allowListsAdmit(credential, candidate, requester);
    });
    return weightedOrder(usable, (entry) => entry.weight, random).map((entry) => toAttemptCredential(byId.get(entry.credentialId)!));
  }
  const admitted = credentials.filter((credential) => credentialAdmits(credential, candidate, requester)).sort(bySortOrder);
  const prioritized = admitted.filter((credential) => !credential.isFallback);
  const fallbacks = admitted.filter((credential) => credential.isFallback);
  const byokOnly = admitted.some((credential) => credential.isByokOnly);
  return [
    ...prioritized.map(toAttemptCredential),
    ...(byokOnly || !gatewayHoldsKey(candidate.endpoint) ? [] : gatewayCredentials(candidate, random)),
    ...fallbacks.map(toAttemptCredential),
  ];
}

/** The gateway's key, or its keys for this endpoint drawn by weight. */
function gatewayCredentials(candidate: RouteCandidate, random: RandomSource): AttemptCredential[] {
  const keys = candidate.endpoint.gatewayKeys;
  if (!keys) return [{ kind: 'gateway' }];
  return weightedOrder(keys, (key) => key.weight, random).map((key) => ({ kind: 'gateway', keyIndex: key.index, apiKey: key.apiKey }));
}

function bySortOrder(a: ResolvedByokCredential, b: ResolvedByokCredential): number {
  return a.sortOrder - b.sortOrder || a.id.localeCompare(b.id);
}

function toAttemptCredential(credential: ResolvedByokCredential): AttemptCredential {
  return { kind: 'byok', credentialId: credential.id, apiKey: credential.apiKey };
}
