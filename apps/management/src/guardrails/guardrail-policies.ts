import type { GuardrailPolicy } from '@gw/contracts';
import type { Prisma } from '../generated/prisma/client.js';

type Db = Pick<Prisma.TransactionClient, 'guardrail' | 'apiKey'>;

/**
 * The guardrails that govern a key's routing, for its principal: its workspace's default, those
 * assigned to the key and those assigned to its member (the key's creator) there. Only those that
 * restrict models or providers: the others change nothing inference decides.
 */
export async function routingGuardrailsOf(
  db: Db,
  key: { hash: string; workspaceId: string; creatorUserId: string },
): Promise<GuardrailPolicy[]> {
  const rows = await db.guardrail.findMany({
    where: {
      workspaceId: key.workspaceId,
      OR: [{ isWorkspaceDefault: true }, { keys: { some: { keyHash: key.hash } } }, { members: { some: { userId: key.creatorUserId } } }],
    },
    orderBy: [{ isWorkspaceDefault: 'desc' }, { createdAt: 'asc' }],
  });
  return rows
    .filter((row) => row.allowedModels.length + row.ignoredModels.length + row.allowedProviders.length + row.ignoredProviders.length > 0)
    .map((row) => ({
      id: row.id,
      name: row.name,
      allowedModels: row.allowedModels,
      ignoredModels: row.ignoredModels,
      allowedProviders: row.allowedProviders,
      ignoredProviders: row.ignoredProviders,
    }));
}

/** The keys whose routing a guardrail governs: to refresh in gateways' caches when it changes. */
export async function keysGovernedBy(
  db: Db,
  guardrail: { id: string; workspaceId: string; isWorkspaceDefault: boolean },
): Promise<string[]> {
  const keys = await db.apiKey.findMany({
    where: guardrail.isWorkspaceDefault
      ? { workspaceId: guardrail.workspaceId }
      : {
          workspaceId: guardrail.workspaceId,
          OR: [
            { guardrails: { some: { guardrailId: guardrail.id } } },
            {
              creator: {
                memberships: { some: { workspaceId: guardrail.workspaceId, guardrails: { some: { guardrailId: guardrail.id } } } },
              },
            },
          ],
        },
    select: { hash: true },
  });
  return keys.map((key) => key.hash);
}
