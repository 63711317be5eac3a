import type { InternView } from '@gw/contracts';
import type { Intern } from '../generated/prisma/client.js';

/** The SDK's Intern object. Vaults, provisioning progress and failures do not exist here: null. */
export function toInternView(intern: Intern): InternView {
  return {
    attached_vault_id: null,
    created_at: intern.createdAt.toISOString(),
    description: intern.description,
    hostname: intern.hostname,
    id: intern.id,
    instructions: intern.instructions,
    last_failure_message: null,
    model: intern.model,
    name: intern.name,
    progress: null,
    status: intern.status,
    updated_at: intern.updatedAt.toISOString(),
    vault_id: null,
    workspace_id: intern.workspaceId,
  };
}
