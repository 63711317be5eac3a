import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { validateEnv } from '@gw/config';
import type { Principal } from '@gw/contracts';
import { principalFixture, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppModule } from '../app.module.js';
import { ManualClock } from '../clock/clock.js';
import { BatchEnv } from '../env.js';
import { FilesService } from './files.service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Uploaded files in the batch service against real PostgreSQL: hidden until whole,
 * scoped as batches (the workspace; an intern key only its intern's), read part by part, and
 * deleted by the sweep 30 days after creation (unfinished uploads sooner).
 */
describe('files in the batch service', () => {
  const clock = new ManualClock(new Date('2026-11-28T08:00:00.000Z'));
  let app: INestApplicationContext;
  let files: FilesService;
  const workspaceId = randomUUID();
  const standard = principalFixture('a'.repeat(64), { workspaceId, userId: randomUUID() });
  const intern = (internId: string): Principal => ({ ...standard, keyHash: 'b'.repeat(64), keyKind: 'intern', internId });

  beforeAll(async () => {
    const env = validateEnv(BatchEnv, {
      DATABASE_URL: testDatabaseUrl(inject('databasePrefix'), 'batch'),
      NATS_URL: inject('natsUrl'),
      LOG_LEVEL: 'silent',
      BATCH_WORKER: 'false',
      BATCH_NATIVE: 'false',
    });
    // No bus subscriptions: the service is called directly, so other specs' replicas on this bus answer their own calls.
    app = await NestFactory.createApplicationContext(AppModule.forRoot(env, { clock }), { logger: false });
    files = app.get(FilesService);
  });

  afterAll(() => app?.close());

  async function stored(who: Principal, parts: string[]): Promise<string> {
    const { id } = await files.create(who, 'lines.jsonl');
    for (const [part, text] of parts.entries())
      await files.append({ principal: who, fileId: id, part, data: Buffer.from(text).toString('base64') });
    const bytes = parts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    await files.complete({ principal: who, fileId: id, purpose: 'batch', parts: parts.length, bytes });
    return id;
  }

  it('keeps an upload hidden until complete, checks its parts, and reads them back in order', async () => {
    const { id } = await files.create(standard, 'partial.jsonl');
    await files.append({ principal: standard, fileId: id, part: 0, data: Buffer.from('{"a":1}\n').toString('base64') });
    await expect(files.get(standard, id)).rejects.toMatchObject({ status: 404 });
    await expect(files.complete({ principal: standard, fileId: id, purpose: 'batch', parts: 2, bytes: 16 })).rejects.toMatchObject({
      status: 500,
    });
    expect(await files.abort(standard, id)).toEqual({ aborted: true });

    const whole = await stored(standard, ['{"a":', '1}\n', '{"b":2}\n']);
    expect(await files.get(standard, whole)).toMatchObject({ id: whole, object: 'file', bytes: 16, purpose: 'batch', status: 'processed' });
    const read: string[] = [];
    for (let part: number | null = 0; part !== null;) {
      const page = await files.content(standard, whole, part);
      read.push(Buffer.from(page.data, 'base64').toString());
      part = page.nextPart;
    }
    expect(read.join('')).toBe('{"a":1}\n{"b":2}\n');
  });

  it("shows an intern key only its intern's files, a standard key the workspace's, another workspace none", async () => {
    const mine = await stored(intern('intern-a'), ['{"x":1}\n']);
    await expect(files.get(intern('intern-b'), mine)).rejects.toMatchObject({ status: 404 });
    await expect(files.content(intern('intern-b'), mine, 0)).rejects.toMatchObject({ status: 404 });
    await expect(files.delete(intern('intern-b'), mine)).rejects.toMatchObject({ status: 404 });
    const listed = (who: Principal) => files.list({ principal: who, limit: 100, order: 'desc' }).then((page) => page.data.map((f) => f.id));
    expect(await listed(intern('intern-b'))).not.toContain(mine);
    expect(await listed(intern('intern-a'))).toContain(mine);
    expect(await listed(standard)).toContain(mine);
    const stranger = principalFixture('c'.repeat(64), { workspaceId: randomUUID(), userId: randomUUID() });
    await expect(files.get(stranger, mine)).rejects.toMatchObject({ status: 404 });
    expect(await listed(stranger)).toEqual([]);
  });

  // The sweep's file step alone: a whole sweep on a clock 30 days ahead would end other specs' batches in this database.
  it('deletes files 30 days after creation and unfinished uploads after BATCH_UPLOAD_ABANDON_MS', async () => {
    const kept = await stored(standard, ['{"k":1}\n']);
    const { id: unfinished } = await files.create(standard, 'left.jsonl');
    const abandonedBefore = () => new Date(clock.now().getTime() - HOUR);
    await files.dropExpired(abandonedBefore());
    clock.advance(2 * HOUR);
    await files.dropExpired(abandonedBefore());
    expect(await files.abort(standard, unfinished)).toEqual({ aborted: false });
    expect(await files.get(standard, kept)).toMatchObject({ id: kept });
    clock.advance(30 * DAY);
    await files.dropExpired(abandonedBefore());
    await expect(files.get(standard, kept)).rejects.toMatchObject({ status: 404 });
  });
});
