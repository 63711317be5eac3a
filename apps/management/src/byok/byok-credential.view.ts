import type { ByokCredentialView } from '@gw/contracts';
import type { ByokCredential } from '../generated/prisma/client.js';

/** Stored allow-lists keep "unrestricted" as an empty array; the API says null. */
export const listOrNull = (list: string[]): string[] | null => (list.length === 0 ? null : list);

/** The wire shape of spec §2.4. The sealed secret and its KEK version never leave the service. */
export function toByokCredentialView(credential: ByokCredential): ByokCredentialView {
  return {
    id: credential.id,
    name: credential.name,
    provider: credential.provider,
    label: credential.label,
    disabled: credential.disabled,
    is_byok_only: credential.isByokOnly,
    is_fallback: credential.isFallback,
    is_required: credential.isRequired,
    sort_order: credential.sortOrder,
    created_at: credential.createdAt.toISOString(),
    workspace_id: credential.workspaceId,
    allowed_api_key_hashes: listOrNull(credential.allowedApiKeyHashes),
    allowed_models: listOrNull(credential.allowedModels),
    allowed_user_ids: listOrNull(credential.allowedUserIds),
    declared_region: credential.declaredRegion,
    declared_zdr: credential.declaredZdr,
  };
}
