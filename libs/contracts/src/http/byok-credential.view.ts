/** The BYOK credential object of spec §2.4 as it goes over the wire. The secret is never part of it. */
export interface ByokCredentialView {
  id: string;
  name: string;
  provider: string;
  /** Masked form of the secret, e.g. `sk-...AbCd`. */
  label: string;
  disabled: boolean;
  is_byok_only: boolean;
  is_fallback: boolean;
  is_required: boolean;
  sort_order: number;
  created_at: string;
  workspace_id: string;
  /** `null`: unrestricted. */
  allowed_api_key_hashes: string[] | null;
  allowed_models: string[] | null;
  allowed_user_ids: string[] | null;
  declared_region: string | null;
  declared_zdr: boolean | null;
}

/** GET /v1/byok: one page, newest first, and how many match the filter in all. */
export interface ByokCredentialPage {
  data: ByokCredentialView[];
  total_count: number;
}

export interface DeletedReply {
  deleted: true;
}

/**
 * POST /v1/byok/{id}/test: whether the provider accepted the credential on one cheap call (its
 * model list). The provider's answer body is never passed on: some echo part of the key.
 */
export interface ByokTestView {
  ok: boolean;
  /** The provider's HTTP status; null when it did not answer (timeout, unreachable) or was not called. */
  status: number | null;
  message: string;
}
