import type { ApiKeyView, KeyKind } from '@gw/contracts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { toApiKeyView } from './api-key.view.js';
import { generateKeySecret } from './key-secret.js';

export interface IssuedKey {
  /** Shown once; only its hash is stored. */
  secret: string;
  key: ApiKeyView;
}

export interface OwnerRef {
  workspaceId: string;
  userId: string;
}

export interface CreatedWorkspace extends OwnerRef {
  /** True when the email was new: a new user owns the workspace and it is their default one. */
  userCreated: boolean;
}

/**
 * Creates a workspace owned by the user with `email`: a new user (whose default workspace it
 * becomes) unless that email exists, in which case that user also owns the new workspace and
 * keeps their default workspace. Either way a key issued here acts on the new workspace only,
 * unless a request names another one its user belongs to.
 */
export async function createWorkspaceWithOwner(
  prisma: PrismaClient,
  input: { workspaceName: string; email: string; userName: string },
): Promise<CreatedWorkspace> {
  return prisma.$transaction(async (tx) => {
    const workspace = await tx.workspace.create({ data: { name: input.workspaceName } });
    const existing = await tx.user.findUnique({ where: { email: input.email }, select: { id: true } });
    const user =
      existing ?? (await tx.user.create({ data: { email: input.email, name: input.userName, defaultWorkspaceId: workspace.id } }));
    await tx.workspaceMember.create({ data: { workspaceId: workspace.id, userId: user.id, role: 'owner' } });
    return { workspaceId: workspace.id, userId: user.id, userCreated: existing === null };
  });
}

export async function issueKey(prisma: PrismaClient, owner: OwnerRef, input: { kind: KeyKind; name: string }): Promise<IssuedKey> {
  const { secret, hash, label } = generateKeySecret();
  const key = await prisma.apiKey.create({
    data: { hash, label, name: input.name, kind: input.kind, workspaceId: owner.workspaceId, creatorUserId: owner.userId },
  });
  return { secret, key: toApiKeyView(key) };
}

/** Adds credits to a workspace (the CLI's `--credits`; the API's is POST /v1/credits). */
export async function grantCredits(prisma: PrismaClient, owner: OwnerRef, amountText: string): Promise<void> {
  if (!/^\d+(\.\d+)?$/.test(amountText)) throw new Error(`--credits must be a non-negative decimal, not "${amountText}"`);
  const amount = new Prisma.Decimal(amountText);
  if (amount.isZero()) return;
  await prisma.$transaction([
    prisma.creditGrant.create({ data: { workspaceId: owner.workspaceId, amount, createdByUserId: owner.userId } }),
    prisma.workspace.update({ where: { id: owner.workspaceId }, data: { creditsTotal: { increment: amount } } }),
  ]);
}
