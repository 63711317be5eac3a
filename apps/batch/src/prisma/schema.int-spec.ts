import { PrismaPg } from '@prisma/adapter-pg';
import { expectAllModelsCovered, expectRoundTrip, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, it, inject } from 'vitest';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';

const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: testDatabaseUrl(inject('databasePrefix'), 'batch') }) });
afterAll(() => prisma.$disconnect());

describe('batch schema against its migrations', () => {
  it('round-trips every model with every field set', async () => {
    const at = new Date('2026-05-06T07:08:09.010Z');
    const batch = {
      id: `batch_${randomUUID()}`,
      workspaceId: randomUUID(),
      keyHash: 'c'.repeat(64),
      principal: { workspaceId: 'w', keyHash: 'c'.repeat(64), keyKind: 'standard', userId: 'u', hasPersonalIdentity: false },
      provider: { only: ['simulator-openai'], allow_fallbacks: false },
      metadata: { team: 'a' },
      usage: { prompt_tokens: 3, cost: 1.5 },
      submittedAt: at,
      expiresAt: new Date(at.getTime() + 86_400_000),
      resultsDeletedAt: at,
      chargedAt: at,
      chargePublishedAt: at,
      upstream: { provider: 'simulator-openai', upstreamBatchId: 'batch_up' },
      inputFileId: 'file-0123',
      endpoint: '/v1/chat/completions',
      model: 'sim/gpt-4o-mini',
      completionWindow: '24h',
      status: 'cancelling' as const,
      errorMessage: 'quota',
      totalCount: 3,
      completedCount: 1,
      failedCount: 1,
      cost: new Prisma.Decimal('1.5'),
      createdAt: at,
      finalizedAt: at,
      resultsExpireAt: new Date(at.getTime() + 30 * 86_400_000),
    };
    await prisma.batch.create({ data: batch });
    expectRoundTrip(batch, await prisma.batch.findUnique({ where: { id: batch.id } }));

    const request = {
      id: randomUUID(),
      batchId: batch.id,
      workspaceId: batch.workspaceId,
      leaseOwner: 'replica-1',
      leaseExpiresAt: at,
      attempts: 2,
      generationId: `gen-${randomUUID()}`,
      cost: new Prisma.Decimal('0.25'),
      usage: { prompt_tokens: 3, cost: '0.25' },
      finishedAt: at,
      customId: 'line-1',
      lineNumber: 1,
      body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      status: 'completed' as const,
      response: { status_code: 200, body: { id: 'x' } },
      error: { type: 'server', message: 'boom', param: null },
      updatedAt: at,
    };
    await prisma.batchRequest.create({ data: request });
    expectRoundTrip(request, await prisma.batchRequest.findUnique({ where: { id: request.id } }));

    const file = {
      id: `file-${randomUUID()}`,
      workspaceId: batch.workspaceId,
      keyHash: 'c'.repeat(64),
      internId: 'intern-1',
      purpose: 'batch',
      filename: 'lines.jsonl',
      bytes: 12,
      createdAt: at,
      completedAt: at,
      // Far ahead: files.int-spec.ts sweeps expired files of this database on a clock moved forward.
      expiresAt: new Date('2099-01-01T00:00:00.000Z'),
    };
    await prisma.file.create({ data: file });
    expectRoundTrip(file, await prisma.file.findUnique({ where: { id: file.id } }));
    const part = { fileId: file.id, part: 0, data: new Uint8Array(Buffer.from('{"a":1}\n')) };
    await prisma.filePart.create({ data: part });
    expectRoundTrip(part, await prisma.filePart.findUnique({ where: { fileId_part: { fileId: file.id, part: 0 } } }));
    expectAllModelsCovered(Prisma.ModelName, ['Batch', 'BatchRequest', 'File', 'FilePart']);
  });
});
