import { PrismaPg } from '@prisma/adapter-pg';
import { expectAllModelsCovered, expectRoundTrip, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, it, inject } from 'vitest';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';

const prisma = new PrismaClient({
  adapter: new PrismaPg({ connectionString: testDatabaseUrl(inject('databasePrefix'), 'intern-signing') }),
});
afterAll(() => prisma.$disconnect());

describe('intern-signing schema against its migrations', () => {
  it('round-trips every model with every field set', async () => {
    const at = new Date('2026-07-08T09:10:11.012Z');
    const intern = {
      id: randomUUID(),
      workspaceId: randomUUID(),
      name: 'Scout',
      ownerUserId: randomUUID(),
      description: 'Looks around',
      instructions: 'Be careful.',
      model: 'openai/gpt-4o:free',
      hostname: 'scout.example.com',
      status: 'destroy_failed' as const,
      createdAt: at,
      updatedAt: at,
    };
    await prisma.intern.create({ data: intern });
    expectRoundTrip(intern, await prisma.intern.findUnique({ where: { id: intern.id } }));
    expectAllModelsCovered(Prisma.ModelName, ['Intern']);
  });
});
