import { Injectable } from '@nestjs/common';
import type { CreditsView, Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { requireManagementKey } from '../keys/keys.service.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { Prisma } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { WorkspaceAccessService } from '../workspaces/workspace-access.service.js';

interface Totals {
  creditsTotal: Prisma.Decimal;
  usageTotal: Prisma.Decimal;
}

const toView = (totals: Totals): CreditsView => ({
  total_credits: totals.creditsTotal.toNumber(),
  total_usage: totals.usageTotal.toNumber(),
});

/**
 * A workspace's credits (docs/adr: credits): what was ever added and what generations ever
 * cost; the balance is their difference. Both requests are about the calling key's own
 * workspace unless a management key names another workspace it belongs to.
 */
@Injectable()
export class CreditsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly workspaces: WorkspaceAccessService,
    private readonly events: ManagementEventsPublisher,
    private readonly audit: AuditWriter,
  ) {}

  async get(principal: Principal): Promise<CreditsView> {
    const workspace = await this.prisma.workspace.findUnique({
      where: { id: principal.workspaceId },
      select: { creditsTotal: true, usageTotal: true },
    });
    if (!workspace) throw GatewayError.notFound('No such workspace');
    return toView(workspace);
  }

  async add(principal: Principal, amountText: string, requestedWorkspaceId?: string): Promise<CreditsView> {
    requireManagementKey(principal);
    const amount = new Prisma.Decimal(amountText);
    if (amount.lte(0)) throw GatewayError.badRequest('amount must be greater than 0');
    const workspaceId = await this.targetWorkspace(principal, requestedWorkspaceId);
    const totals = await this.prisma.$transaction(async (tx) => {
      const grant = await tx.creditGrant.create({ data: { workspaceId, amount, createdByUserId: principal.userId } });
      const totals = await tx.workspace.update({
        where: { id: workspaceId },
        data: { creditsTotal: { increment: amount } },
        select: { creditsTotal: true, usageTotal: true },
      });
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: 'credits.add',
        resourceType: 'credit_grant',
        resourceId: grant.id,
        before: toView({ creditsTotal: totals.creditsTotal.minus(amount), usageTotal: totals.usageTotal }),
        after: { ...toView(totals), amount: amount.toNumber() },
      });
      return totals;
    });
    const balanceAfter = totals.creditsTotal.minus(totals.usageTotal);
    if (balanceAfter.minus(amount).lte(0) && balanceAfter.gt(0)) {
      // The workspace was out of credits: its keys' cached principals carry the block.
      const keys = await this.prisma.apiKey.findMany({ where: { workspaceId, disabled: false }, select: { hash: true } });
      this.events.keysChanged(keys.map((key) => key.hash));
    }
    return toView(totals);
  }

  /** The one workspace rule. */
  private targetWorkspace(principal: Principal, requested?: string): Promise<string> {
    return this.workspaces.resolveWorkspace(principal, requested);
  }
}
