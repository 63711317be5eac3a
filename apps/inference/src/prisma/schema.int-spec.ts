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
      createdAt: new Date('2026-01-02T03:04:05.678Z'),
    };
    await prisma.generation.create({ data: generation });
    expectRoundTrip(generation, await prisma.generation.findUnique({ where: { id: generation.id } }));
    expectAllModelsCovered(Prisma.ModelName, ['Generation']);
  });
});
