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
    const workspace = { id: randomUUID(), name: 'Acme', createdAt: at, updatedAt: at };
    await prisma.workspace.create({ data: workspace });
    expectRoundTrip(workspace, await prisma.workspace.findUnique({ where: { id: workspace.id } }));

    const user = {
      id: randomUUID(),
      email: `${randomUUID()}@example.com`,
      name: 'Ada',
      defaultWorkspaceId: workspace.id,
      oidcIssuer: 'https://issuer.example.com',
      oidcSubject: 'subject-1',
      createdAt: at,
      updatedAt: at,
    };
    await prisma.user.create({ data: user });
    expectRoundTrip(user, await prisma.user.findUnique({ where: { id: user.id } }));

    const member = { workspaceId: workspace.id, userId: user.id, role: 'owner' as const, createdAt: at };
    await prisma.workspaceMember.create({ data: member });
    expectRoundTrip(member, await prisma.workspaceMember.findUnique({ where: { workspaceId_userId: { workspaceId: workspace.id, userId: user.id } } }));

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
      createdAt: at,
      updatedAt: at,
    };
    await prisma.apiKey.create({ data: key });
    expectRoundTrip(key, await prisma.apiKey.findUnique({ where: { hash: key.hash } }));

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

    expectAllModelsCovered(Prisma.ModelName, ['Workspace', 'User', 'WorkspaceMember', 'ApiKey', 'ByokCredential']);
  });
});
