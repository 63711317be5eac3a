import { PrismaPg } from '@prisma/adapter-pg';
import { expectAllModelsCovered, expectRoundTrip, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, it, inject } from 'vitest';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';

const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: testDatabaseUrl(inject('databasePrefix'), 'management') }) });
afterAll(() => prisma.$disconnect());

describe('management schema against its migrations', () => {
  it('round-trips every model with every field set', async () => {
    const at = new Date('2026-03-04T05:06:07.089Z');
    const workspace = {
      id: randomUUID(),
      name: 'Acme',
      createdAt: at,
      updatedAt: at,
      creditsTotal: new Prisma.Decimal('100.123456789012345678'),
      usageTotal: new Prisma.Decimal('0.000000000000000001'),
    };
    await prisma.workspace.create({ data: workspace });
    expectRoundTrip(workspace, await prisma.workspace.findUnique({ where: { id: workspace.id } }));

    const user = {
      id: randomUUID(),
      email: `${randomUUID()}@example.com`,
      name: 'Ada',
      defaultWorkspaceId: workspace.id,
      oidcIssuer: 'https://issuer.example.com',
      oidcSubject: 'subject-1',
      oidcLinkedAt: at,
      createdAt: at,
      updatedAt: at,
    };
    await prisma.user.create({ data: user });
    expectRoundTrip(user, await prisma.user.findUnique({ where: { id: user.id } }));

    const member = { workspaceId: workspace.id, userId: user.id, role: 'owner' as const, createdAt: at };
    await prisma.workspaceMember.create({ data: member });
    expectRoundTrip(
      member,
      await prisma.workspaceMember.findUnique({ where: { workspaceId_userId: { workspaceId: workspace.id, userId: user.id } } }),
    );

    const key = {
      hash: 'a'.repeat(63) + '1',
      name: 'ci',
      label: 'sk-gw-v1-abc...wxyz',
      kind: 'intern' as const,
      workspaceId: workspace.id,
      creatorUserId: user.id,
      internId: 'intern-1',
      disabled: true,
      limit: new Prisma.Decimal('12.345678901234'),
      limitReset: 'weekly' as const,
      includeByokInLimit: true,
      expiresAt: at,
      lastUsedAt: at,
      usage: new Prisma.Decimal('12345678901234567890.123456789012345678'),
      byokUsage: new Prisma.Decimal('2.5'),
      usageDaily: new Prisma.Decimal('0.1'),
      byokUsageDaily: new Prisma.Decimal('0.2'),
      dailyPeriodStart: new Date('2026-03-04T00:00:00Z'),
      usageWeekly: new Prisma.Decimal('0.3'),
      byokUsageWeekly: new Prisma.Decimal('0.4'),
      weeklyPeriodStart: new Date('2026-03-02T00:00:00Z'),
      usageMonthly: new Prisma.Decimal('0.5'),
      byokUsageMonthly: new Prisma.Decimal('0.6'),
      monthlyPeriodStart: new Date('2026-03-01T00:00:00Z'),
      createdAt: at,
      updatedAt: at,
    };
    await prisma.apiKey.create({ data: key });
    expectRoundTrip(key, await prisma.apiKey.findUnique({ where: { hash: key.hash } }));

    const ledgerEntry = {
      generationId: `gen-${randomUUID()}`,
      workspaceId: workspace.id,
      keyHash: key.hash,
      cost: new Prisma.Decimal('0.000000123456789012'),
      upstreamCost: new Prisma.Decimal('0.5'),
      isByok: true,
      generatedAt: at,
      recordedAt: at,
    };
    await prisma.usageLedgerEntry.create({ data: ledgerEntry });
    expectRoundTrip(ledgerEntry, await prisma.usageLedgerEntry.findUnique({ where: { generationId: ledgerEntry.generationId } }));

    const creditGrant = {
      id: randomUUID(),
      workspaceId: workspace.id,
      amount: new Prisma.Decimal('25.75'),
      createdByUserId: user.id,
      createdAt: at,
    };
    await prisma.creditGrant.create({ data: creditGrant });
    expectRoundTrip(creditGrant, await prisma.creditGrant.findUnique({ where: { id: creditGrant.id } }));

    const reservation = {
      id: randomUUID(),
      workspaceId: workspace.id,
      keyHash: 'c'.repeat(64),
      amount: new Prisma.Decimal('0.000123456789012345'),
      released: true,
      expiresAt: at,
      createdAt: at,
    };
    await prisma.spendReservation.create({ data: reservation });
    expectRoundTrip(reservation, await prisma.spendReservation.findUnique({ where: { id: reservation.id } }));

    const byokCredential = {
      id: randomUUID(),
      workspaceId: workspace.id,
      name: 'prod openai',
      provider: 'openai',
      label: 'sk-...AbCd',
      disabled: true,
      isByokOnly: true,
      isFallback: true,
      isRequired: true,
      sortOrder: 42,
      allowedApiKeyHashes: [key.hash],
      allowedModels: ['sim/gpt-4o-mini', 'openai/gpt-4o'],
      allowedUserIds: [user.id],
      declaredRegion: 'eu',
      declaredZdr: false,
      encryptedSecret: new Uint8Array([1, 2, 3, 0, 255]),
      wrappedDataKey: new Uint8Array([1, 9, 8, 7]),
      kekVersion: 'v1',
      createdAt: at,
      updatedAt: at,
    };
    await prisma.byokCredential.create({ data: byokCredential });
    expectRoundTrip(byokCredential, await prisma.byokCredential.findUnique({ where: { id: byokCredential.id } }));

    // A preset and its version point at each other: the preset is written first without
    // its designated version, then designated once the version exists.
    const preset = {
      id: randomUUID(),
      workspaceId: workspace.id,
      slug: 'support-bot',
      name: 'Support bot',
      description: 'Answers support questions',
      status: 'active' as const,
      statusUpdatedAt: at,
      creatorUserId: user.id,
      latestVersion: 7,
      designatedVersionId: randomUUID(),
      createdAt: at,
      updatedAt: at,
    };
    await prisma.preset.create({ data: { ...preset, designatedVersionId: null } });
    const presetVersion = {
      id: preset.designatedVersionId,
      presetId: preset.id,
      version: 7,
      config: { model: 'sim/gpt-4o-mini', temperature: 0.5, stop: ['\n'], provider: { allow_fallbacks: false } },
      systemPrompt: 'Be brief.',
      creatorId: user.id,
      createdAt: at,
      updatedAt: at,
    };
    await prisma.presetVersion.create({ data: presetVersion });
    await prisma.preset.update({ where: { id: preset.id }, data: { designatedVersionId: preset.designatedVersionId, updatedAt: at } });
    expectRoundTrip(preset, await prisma.preset.findUnique({ where: { id: preset.id } }));
    expectRoundTrip(presetVersion, await prisma.presetVersion.findUnique({ where: { id: presetVersion.id } }));

    const login = {
      state: `state-${randomUUID()}`,
      nonce: 'nonce-1',
      codeVerifier: 'v'.repeat(43),
      userId: user.id,
      expiresAt: at,
      createdAt: at,
    };
    await prisma.oidcLoginState.create({ data: login });
    expectRoundTrip(login, await prisma.oidcLoginState.findUnique({ where: { state: login.state } }));

    // Issue 31: guardrails, their assignments, budgets and their counters, the audit log.
    const guardrail = {
      id: randomUUID(),
      workspaceId: workspace.id,
      name: 'No OpenAI',
      description: 'tests',
      isWorkspaceDefault: false,
      allowedModels: ['sim/gpt-4o-mini'],
      ignoredModels: ['sim/claude-sonnet'],
      allowedProviders: ['simulator-b'],
      ignoredProviders: ['simulator-openai'],
      limitUsd: new Prisma.Decimal('12.000000000001'),
      resetInterval: 'weekly' as const,
      includeByokInBudgets: true,
      createdAt: at,
      updatedAt: at,
    };
    await prisma.guardrail.create({ data: guardrail });
    expectRoundTrip(guardrail, await prisma.guardrail.findUnique({ where: { id: guardrail.id } }));
    const keyAssignment = { id: randomUUID(), guardrailId: guardrail.id, keyHash: key.hash, assignedBy: user.id, createdAt: at };
    await prisma.guardrailKeyAssignment.create({ data: keyAssignment });
    expectRoundTrip(keyAssignment, await prisma.guardrailKeyAssignment.findUnique({ where: { id: keyAssignment.id } }));
    const memberAssignment = {
      id: randomUUID(),
      guardrailId: guardrail.id,
      workspaceId: workspace.id,
      userId: user.id,
      assignedBy: user.id,
      createdAt: at,
    };
    await prisma.guardrailMemberAssignment.create({ data: memberAssignment });
    expectRoundTrip(memberAssignment, await prisma.guardrailMemberAssignment.findUnique({ where: { id: memberAssignment.id } }));
    const workspaceBudget = {
      id: randomUUID(),
      workspaceId: workspace.id,
      interval: 'lifetime' as const,
      limitUsd: new Prisma.Decimal('5.5'),
      createdAt: at,
      updatedAt: at,
    };
    await prisma.workspaceBudget.create({ data: workspaceBudget });
    expectRoundTrip(workspaceBudget, await prisma.workspaceBudget.findUnique({ where: { id: workspaceBudget.id } }));
    const memberBudget = {
      id: randomUUID(),
      workspaceId: workspace.id,
      userId: user.id,
      interval: 'daily' as const,
      limitUsd: new Prisma.Decimal('1'),
      createdAt: at,
      updatedAt: at,
    };
    await prisma.memberBudget.create({ data: memberBudget });
    expectRoundTrip(memberBudget, await prisma.memberBudget.findUnique({ where: { id: memberBudget.id } }));
    const spend = {
      workspaceId: workspace.id,
      userId: user.id,
      interval: 'monthly' as const,
      periodStart: new Date('2026-03-01T00:00:00.000Z'),
      spend: new Prisma.Decimal('0.000000000000000001'),
      byokSpend: new Prisma.Decimal('2.5'),
    };
    await prisma.budgetSpend.create({ data: spend });
    expectRoundTrip(
      spend,
      await prisma.budgetSpend.findUnique({
        where: {
          workspaceId_userId_interval_periodStart: {
            workspaceId: workspace.id,
            userId: user.id,
            interval: 'monthly',
            periodStart: spend.periodStart,
          },
        },
      }),
    );
    const audit = {
      workspaceId: workspace.id,
      actorKind: 'management_key',
      actorUserId: user.id,
      actorKeyHash: key.hash,
      action: 'keys.update',
      resourceType: 'api_key',
      resourceId: key.hash,
      before: { name: 'a' },
      after: { name: 'b' },
      ip: '::1',
      requestId: 'req-1',
      createdAt: at,
      origin: `catalog/${Date.now()}/catalog_model/a/b`,
      actorName: 'platform',
    };
    const auditRow = await prisma.auditLogEntry.create({ data: audit });
    expectRoundTrip(audit, await prisma.auditLogEntry.findUnique({ where: { id: auditRow.id } }));

    // Issue 30: a workspace's own models, their endpoints bound to its BYOK credentials.
    const workspaceModel = {
      workspaceId: workspace.id,
      id: 'acme/llama-3.3-70b',
      body: {
        name: 'Llama',
        endpoints: [{ format: 'openai', baseUrl: 'https://llm.example.com/v1', credentials: [{ id: 'c1', weight: 2 }] }],
      },
      createdAt: at,
      updatedAt: at,
    };
    await prisma.workspaceModel.create({ data: workspaceModel });
    expectRoundTrip(
      workspaceModel,
      await prisma.workspaceModel.findUnique({ where: { workspaceId_id: { workspaceId: workspace.id, id: workspaceModel.id } } }),
    );

    // Issue 32: an operator's console session (no user, no key of a workspace).
    const operatorSession = { hash: 'c'.repeat(64), operator: 'ops', expiresAt: at, createdAt: at };
    await prisma.consoleOperatorSession.create({ data: operatorSession });
    expectRoundTrip(operatorSession, await prisma.consoleOperatorSession.findUnique({ where: { hash: operatorSession.hash } }));

    expectAllModelsCovered(Prisma.ModelName, [
      'ConsoleOperatorSession',
      'WorkspaceModel',
      'Guardrail',
      'GuardrailKeyAssignment',
      'GuardrailMemberAssignment',
      'WorkspaceBudget',
      'MemberBudget',
      'BudgetSpend',
      'AuditLogEntry',
      'Workspace',
      'User',
      'WorkspaceMember',
      'ApiKey',
      'ByokCredential',
      'Preset',
      'PresetVersion',
      'UsageLedgerEntry',
      'CreditGrant',
      'SpendReservation',
      'OidcLoginState',
    ]);
  });
});
