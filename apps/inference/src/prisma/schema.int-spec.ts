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
    // Rows live in daily partitions, created by the writers for the days they need.
    await prisma.$queryRaw`SELECT generation_partition_for('2026-01-02'::date)::text`;
    await prisma.generation.create({ data: generation });
    expectRoundTrip(
      generation,
      await prisma.generation.findUnique({ where: { id_createdAt: { id: generation.id, createdAt: generation.createdAt } } }),
    );

    const rollup = {
      workspaceId: randomUUID(),
      hour: new Date('2026-01-02T03:00:00.000Z'),
      keyHash: 'c'.repeat(64),
      userId: randomUUID(),
      model: 'sim/gpt-4o-mini',
      provider: 'simulator-openai',
      upstreamModel: 'gpt-4o-mini',
      requests: 3n,
      failedRequests: 1n,
      streamedRequests: 2n,
      byokRequests: 1n,
      promptTokens: 30n,
      completionTokens: 40n,
      reasoningTokens: 5n,
      cachedTokens: 6n,
      cost: new Prisma.Decimal('0.000000000003'),
      upstreamCost: new Prisma.Decimal('12.000000000001'),
      byokUpstreamCost: new Prisma.Decimal('4.5'),
      latencyMs: 99n,
      cacheHits: 2n,
      costAvoided: new Prisma.Decimal('0.000000000007'),
      cacheSavings: new Prisma.Decimal('0.000000000005'),
    };
    await prisma.generationRollup.create({ data: rollup });
    const { workspaceId, hour, keyHash, userId, model, provider, upstreamModel } = rollup;
    expectRoundTrip(
      rollup,
      await prisma.generationRollup.findUnique({
        where: {
          workspaceId_hour_keyHash_userId_model_provider_upstreamModel: {
            workspaceId,
            hour,
            keyHash,
            userId,
            model,
            provider,
            upstreamModel,
          },
        },
      }),
    );

    const { hour: _hour, ...perDay } = rollup;
    const daily = { ...perDay, day: new Date('2026-01-02T00:00:00.000Z') };
    await prisma.generationRollupDaily.create({ data: daily });
    expectRoundTrip(
      daily,
      await prisma.generationRollupDaily.findUnique({
        where: {
          workspaceId_day_keyHash_userId_model_provider_upstreamModel: {
            workspaceId,
            day: daily.day,
            keyHash,
            userId,
            model,
            provider,
            upstreamModel,
          },
        },
      }),
    );

    const { userId: _user, keyHash: _key, ...perModel } = daily;
    await prisma.generationRollupDailyModel.create({ data: perModel });
    expectRoundTrip(
      perModel,
      await prisma.generationRollupDailyModel.findUnique({
        where: { workspaceId_day_model_provider_upstreamModel: { workspaceId, day: daily.day, model, provider, upstreamModel } },
      }),
    );

    const { userId: _u, model: _m, provider: _p, upstreamModel: _um, ...perKey } = rollup;
    await prisma.generationRollupHourlyKey.create({ data: perKey });
    expectRoundTrip(
      perKey,
      await prisma.generationRollupHourlyKey.findUnique({ where: { workspaceId_hour_keyHash: { workspaceId, hour, keyHash } } }),
    );

    const setting = { workspaceId: randomUUID(), enabled: true, retentionDays: 7, updatedAt: new Date('2026-01-02T03:04:05.678Z') };
    await prisma.contentLoggingSetting.create({ data: setting });
    expectRoundTrip(setting, await prisma.contentLoggingSetting.findUnique({ where: { workspaceId: setting.workspaceId } }));

    const content = {
      generationId: generation.id,
      workspaceId: generation.workspaceId,
      keyHash: generation.keyHash,
      createdAt: new Date('2026-01-02T03:04:05.678Z'),
      expiresAt: new Date('2026-02-02T03:04:05.678Z'),
      truncated: true,
      redactions: 2,
      encrypted: new Uint8Array([1, 2, 3]),
      wrappedDataKey: new Uint8Array([4, 5, 6]),
      kekVersion: 'v1',
    };
    await prisma.generationContent.create({ data: content });
    expectRoundTrip(content, await prisma.generationContent.findUnique({ where: { generationId: content.generationId } }));
    const version = {
      version: 900_000 + Math.floor(Math.random() * 1000),
      document: '{"providers": [], "models": []}\n',
      author: 'platform',
      action: 'put_model',
      source: 'admin',
      changes: [{ op: 'change', path: 'models[a/b].name', before: 'A', after: 'B' }],
      createdAt: new Date('2026-01-02T03:04:05.678Z'),
      auditedAt: new Date('2026-01-02T03:04:06.789Z'),
      requestId: 'req-1',
      clientIp: '203.0.113.7',
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
    const failure = {
      failureId: randomUUID(),
      requestId: 'req-failed-1',
      workspaceId: randomUUID(),
      keyHash: 'd'.repeat(64),
      userId: randomUUID(),
      model: 'sim/gpt-4o-mini',
      errorType: 'rate_limit_exceeded',
      status: 429,
      createdAt: new Date('2026-01-02T03:04:05.678Z'),
    };
    await prisma.requestFailure.create({ data: failure });
    expectRoundTrip(failure, await prisma.requestFailure.findUnique({ where: { failureId: failure.failureId } }));
    const failures = {
      workspaceId: failure.workspaceId,
      hour: new Date('2026-01-02T03:00:00.000Z'),
      keyHash: failure.keyHash,
      userId: failure.userId,
      model: '',
      errorType: 'provider_unavailable',
      failures: 7n,
    };
    await prisma.requestFailureRollup.create({ data: failures });
    expectRoundTrip(
      failures,
      await prisma.requestFailureRollup.findUnique({
        where: {
          workspaceId_hour_keyHash_userId_model_errorType: {
            workspaceId: failures.workspaceId,
            hour: failures.hour,
            keyHash: failures.keyHash,
            userId: failures.userId,
            model: '',
            errorType: failures.errorType,
          },
        },
      }),
    );
    expectAllModelsCovered(Prisma.ModelName, [
      'CatalogVersion',
      'CatalogFileSeen',
      'Generation',
      'GenerationRollup',
      'GenerationRollupDaily',
      'GenerationRollupDailyModel',
      'GenerationRollupHourlyKey',
      'ContentLoggingSetting',
      'GenerationContent',
      'RequestFailure',
      'RequestFailureRollup',
    ]);
  });
});
