import { PrismaPg } from '@prisma/adapter-pg';
import { expectAllModelsCovered, expectRoundTrip, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, it, inject } from 'vitest';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';

const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: testDatabaseUrl(inject('databasePrefix'), 'inference') }) });
afterAll(() => prisma.$disconnect());

describe('inference schema against its migrations', () => {
  it('round-trips every model with every field set', async () => {
    const generation = {
      id: `gen-${randomUUID()}`,
      workspaceId: randomUUID(),
      keyHash: 'b'.repeat(64),
      model: 'sim/gpt-4o-mini',
      provider: 'simulator-openai',
      upstreamModel: 'gpt-4o-mini',
      status: 'failed' as const,
      promptTokens: 12,
      completionTokens: 34,
      cachedTokens: 5,
      reasoningTokens: 6,
      tokensEstimated: true,
      cost: new Prisma.Decimal('0.000012345678'),
      upstreamCost: new Prisma.Decimal('0.000246913578'),
      isByok: true,
      latencyMs: 789,
      userId: randomUUID(),
      sessionId: 'session-1',
      batchId: 'batch_1',
      attempts: 2,
      endpointsTried: ['simulator-openai/a', 'simulator-openai/b'],
      priceVersion: 4,
      createdAt: new Date('2026-01-02T03:04:05.678Z'),
    };
    await prisma.generation.create({ data: generation });
    expectRoundTrip(generation, await prisma.generation.findUnique({ where: { id: generation.id } }));
    const version = {
      version: 900_000 + Math.floor(Math.random() * 1000),
      document: '{"providers": [], "models": []}\n',
      author: 'platform',
      action: 'put_model',
      source: 'admin',
      changes: [{ op: 'change', path: 'models[a/b].name', before: 'A', after: 'B' }],
      createdAt: new Date('2026-01-02T03:04:05.678Z'),
    };
    await prisma.catalogVersion.create({ data: version });
    expectRoundTrip(version, await prisma.catalogVersion.findUnique({ where: { version: version.version } }));
    await prisma.catalogVersion.delete({ where: { version: version.version } });
    const seen = { id: 1, hash: 'c'.repeat(64), version: 3, seenAt: new Date('2026-01-02T03:04:05.678Z') };
    const before = await prisma.catalogFileSeen.findUnique({ where: { id: 1 } });
    await prisma.catalogFileSeen.upsert({ where: { id: 1 }, create: seen, update: seen });
    expectRoundTrip(seen, await prisma.catalogFileSeen.findUnique({ where: { id: 1 } }));
    if (before) await prisma.catalogFileSeen.update({ where: { id: 1 }, data: before });
    else await prisma.catalogFileSeen.delete({ where: { id: 1 } });
    expectAllModelsCovered(Prisma.ModelName, ['Generation', 'CatalogVersion', 'CatalogFileSeen']);
  });
});
