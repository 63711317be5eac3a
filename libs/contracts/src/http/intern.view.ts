/** Lifecycle statuses as `@openrouter/sdk` lists them (models/intern.d.ts). */
export const INTERN_STATUSES = [
  'awaiting_slack_install',
  'queued',
  'provisioning',
  'running',
  'failed',
  'stopped',
  'destroying',
  'destroy_failed',
] as const;
export type InternStatus = (typeof INTERN_STATUSES)[number];

/** Active provisioning step; always null here (no provisioning runs in this service). */
export interface InternProgressView {
  step_label: string;
  step_number: number;
  total_steps: number;
}

/** The intern object, keys exactly as `@openrouter/sdk` reads them (Intern$inboundSchema). */
export interface InternView {
  attached_vault_id: string | null;
  created_at: string;
  description: string | null;
  hostname: string | null;
  id: string;
  instructions: string | null;
  last_failure_message: string | null;
  model: string | null;
  name: string;
  progress: InternProgressView | null;
  status: InternStatus;
  updated_at: string;
  vault_id: string | null;
  workspace_id: string;
}

/** GET /v1/interns (InternListResponse). */
export interface InternListView {
  data: InternView[];
  has_more: boolean;
  next_cursor?: string;
}

/** DELETE /v1/interns/{id}, answered 202. */
export interface DeleteInternView {
  deleting: true;
}

/**
 * The sign operation's 200 (spec §2.5): header names to copy onto the daemon request. The key
 * id always; nonce and v2 signature when the request named a route.
 */
export interface DaemonSignatureHeadersView {
  'x-ori-invoke-signature': string;
  'x-ori-invoke-timestamp': string;
  'x-ori-invoke-user': string;
  'x-ori-invoke-key-id': string;
  'x-ori-invoke-nonce'?: string;
  'x-ori-invoke-signature-v2'?: string;
}

/** GET /v1/daemon/jwks.json (RFC 7517 / 8037). */
export interface DaemonJwksView {
  keys: Array<{ kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; use: 'sig' }>;
}
