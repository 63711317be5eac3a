import { Injectable } from '@nestjs/common';
import {
  BUDGET_INTERVALS,
  UpsertBudgetDto,
  validateDto,
  type BudgetIntervalName,
  type BudgetsEnvelope,
  type Principal,
  type WorkspaceBudgetView,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { randomUUID } from 'node:crypto';
import { Prisma } from '../generated/prisma/client.js';
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { periodStart } from '../usage/usage-periods.js';
import { ADMINS, EVERYONE, WorkspaceRoles } from './workspace-roles.js';

/** The user id under which a whole workspace's spend is counted in `budget_spend`. */
const WORKSPACE_SCOPE = '00000000-0000-0000-0000-000000000000';
const LIFETIME_START = new Date(Date.UTC(1970, 0, 1));

interface BudgetRow {
  id: string;
  workspaceId: string;
  userId?: string;
  interval: BudgetIntervalName;
  limitUsd: Prisma.Decimal;
  createdAt: Date;
  updatedAt: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function intervalOf(value: unknown): BudgetIntervalName {
  if (!BUDGET_INTERVALS.includes(value as BudgetIntervalName)) {
    throw GatewayError.badRequest(`interval must be one of ${BUDGET_INTERVALS.join(', ')}`);
  }
  return value as BudgetIntervalName;
}

/** The first day of the period `at` falls in; lifetime budgets have one period. */
function budgetPeriodStart(interval: BudgetIntervalName, at: Date): Date {
  return interval === 'lifetime' ? LIFETIME_START : periodStart(interval, at);
}

/**
 * Budgets per workspace (`workspaces.listBudgets/getBudget/setBudget/deleteBudget`) and per member
 * (this gateway's `/workspaces/{ref}/members/{user_id}/budgets/{interval}`), with the spend of the
 * current period. Enforcing them is `budget_headroom()`'s caller's (the spend reservation).
 */
@Injectable()
export class WorkspaceBudgetsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly roles: WorkspaceRoles,
    private readonly audit: AuditWriter,
  ) {}

  async list(principal: Principal, ref: string, userId?: string): Promise<BudgetsEnvelope<WorkspaceBudgetView[]>> {
    const workspaceId = await this.roles.require(principal, ref, EVERYONE);
    const member = userId === undefined ? undefined : await this.member(workspaceId, userId);
    const rows: BudgetRow[] = member
      ? await this.prisma.memberBudget.findMany({ where: { workspaceId, userId: member }, orderBy: { createdAt: 'asc' } })
      : await this.prisma.workspaceBudget.findMany({ where: { workspaceId }, orderBy: { createdAt: 'asc' } });
    return { data: await this.views(rows), include_byok_in_budgets: await this.includesByok(workspaceId) };
  }

  async get(principal: Principal, ref: string, interval: unknown): Promise<BudgetsEnvelope<WorkspaceBudgetView>> {
    const workspaceId = await this.roles.require(principal, ref, EVERYONE);
    const row = await this.prisma.workspaceBudget.findUnique({
      where: { workspaceId_interval: { workspaceId, interval: intervalOf(interval) } },
    });
    if (!row) throw GatewayError.notFound('No budget for that interval');
    return { data: (await this.views([row]))[0]!, include_byok_in_budgets: await this.includesByok(workspaceId) };
  }

  /** Creates or replaces the budget of the interval; `include_byok_in_budgets` is the workspace's. */
  async set(
    principal: Principal,
    ref: string,
    interval: unknown,
    body: unknown,
    userId?: string,
  ): Promise<BudgetsEnvelope<WorkspaceBudgetView>> {
    const period = intervalOf(interval);
    const dto = await validateDto(UpsertBudgetDto, body, 'reject');
    const workspaceId = await this.roles.require(principal, ref, ADMINS);
    const member = userId === undefined ? undefined : await this.member(workspaceId, userId);
    const limitUsd = new Prisma.Decimal(dto.limit_usd);
    return this.prisma.$transaction(async (tx) => {
      const before: BudgetRow | null = member
        ? await tx.memberBudget.findUnique({ where: { workspaceId_userId_interval: { workspaceId, userId: member, interval: period } } })
        : await tx.workspaceBudget.findUnique({ where: { workspaceId_interval: { workspaceId, interval: period } } });
      const row: BudgetRow = member
        ? await tx.memberBudget.upsert({
            where: { workspaceId_userId_interval: { workspaceId, userId: member, interval: period } },
            create: { id: randomUUID(), workspaceId, userId: member, interval: period, limitUsd },
            update: { limitUsd },
          })
        : await tx.workspaceBudget.upsert({
            where: { workspaceId_interval: { workspaceId, interval: period } },
            create: { id: randomUUID(), workspaceId, interval: period, limitUsd },
            update: { limitUsd },
          });
      let includeByok = await this.includesByok(workspaceId, tx);
      if (dto.include_byok_in_budgets !== undefined && dto.include_byok_in_budgets !== includeByok) {
        await tx.workspace.update({ where: { id: workspaceId }, data: { includeByokInBudgets: dto.include_byok_in_budgets } });
        includeByok = dto.include_byok_in_budgets;
      }
      const [view] = await this.views([row], tx);
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: member ? 'member.budget.set' : 'workspace.budget.set',
        resourceType: member ? 'member_budget' : 'workspace_budget',
        resourceId: row.id,
        before: before ? { ...(await this.views([before], tx))[0], limit_usd: before.limitUsd.toNumber() } : undefined,
        after: { ...view, include_byok_in_budgets: includeByok },
      });
      return { data: view!, include_byok_in_budgets: includeByok };
    });
  }

  async delete(principal: Principal, ref: string, interval: unknown, userId?: string): Promise<{ deleted: true }> {
    const period = intervalOf(interval);
    const workspaceId = await this.roles.require(principal, ref, ADMINS);
    const member = userId === undefined ? undefined : await this.member(workspaceId, userId);
    await this.prisma.$transaction(async (tx) => {
      const row: BudgetRow | null = member
        ? await tx.memberBudget.findUnique({ where: { workspaceId_userId_interval: { workspaceId, userId: member, interval: period } } })
        : await tx.workspaceBudget.findUnique({ where: { workspaceId_interval: { workspaceId, interval: period } } });
      if (!row) throw GatewayError.notFound('No budget for that interval');
      if (member) await tx.memberBudget.delete({ where: { id: row.id } });
      else await tx.workspaceBudget.delete({ where: { id: row.id } });
      await this.audit.record(tx, actorOf(principal), {
        workspaceId,
        action: member ? 'member.budget.delete' : 'workspace.budget.delete',
        resourceType: member ? 'member_budget' : 'workspace_budget',
        resourceId: row.id,
        before: (await this.views([row], tx))[0],
      });
    });
    return { deleted: true };
  }

  /** A member of the workspace, else 404 (the same answer as a user that does not exist). */
  private async member(workspaceId: string, userId: string): Promise<string> {
    const id = UUID.test(userId) ? userId.toLowerCase() : null;
    const row = id ? await this.prisma.workspaceMember.findUnique({ where: { workspaceId_userId: { workspaceId, userId: id } } }) : null;
    if (!row) throw GatewayError.notFound('No such member in this workspace');
    return row.userId;
  }

  private async includesByok(workspaceId: string, db: Prisma.TransactionClient = this.prisma): Promise<boolean> {
    const row = await db.workspace.findUnique({ where: { id: workspaceId }, select: { includeByokInBudgets: true } });
    return row?.includeByokInBudgets ?? false;
  }

  /** With the spend counted in each budget's current period. */
  private async views(rows: BudgetRow[], db: Prisma.TransactionClient = this.prisma, now = new Date()): Promise<WorkspaceBudgetView[]> {
    return Promise.all(
      rows.map(async (row) => {
        const spend = await db.budgetSpend.findUnique({
          where: {
            workspaceId_userId_interval_periodStart: {
              workspaceId: row.workspaceId,
              userId: row.userId ?? WORKSPACE_SCOPE,
              interval: row.interval,
              periodStart: budgetPeriodStart(row.interval, now),
            },
          },
        });
        const includeByok = await this.includesByok(row.workspaceId, db);
        const used = spend ? (includeByok ? spend.spend.plus(spend.byokSpend) : spend.spend) : new Prisma.Decimal(0);
        return {
          id: row.id,
          workspace_id: row.workspaceId,
          ...(row.userId ? { user_id: row.userId } : {}),
          limit_usd: row.limitUsd.toNumber(),
          reset_interval: row.interval === 'lifetime' ? null : row.interval,
          usage_usd: used.toNumber(),
          created_at: row.createdAt.toISOString(),
          updated_at: row.updatedAt.toISOString(),
        };
      }),
    );
  }
}
