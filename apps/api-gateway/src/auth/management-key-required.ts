import { GatewayError } from '@gw/errors';
import { ManagementKeyGuard } from './management-key.guard.js';

/**
 * Workspaces, guardrails, organization and audit log: another key kind is a 401
 * `management_key_required` (as keys and BYOK answer it, spec §4.2, §4.7; the SDK lists 401 on
 * every one of these operations), before its body or query is looked at. 403 is the workspace
 * role's answer (a member may read, not change).
 */
export const managementOnly = () =>
  new ManagementKeyGuard(
    () =>
      new GatewayError(401, 'A management key is required for this operation', {
        errorType: 'authentication',
        metadata: { reason: 'management_key_required' },
      }),
  );
