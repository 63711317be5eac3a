import type { INestMicroservice } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  EVENTS,
  SUBJECTS,
  type PageView,
  type PresetResolveReply,
  type PresetVersionView,
  type PresetView,
  type Principal,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { principalFixture, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startManagement } from '../spec-helpers.js';
import { PrismaClient } from '../generated/prisma/client.js';

const body = (extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user', content: 'hi' }], ...extra });

/** The presets handlers on a real NATS and PostgreSQL, called the way the gateway calls them. */
describe('management presets over NATS', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let admin: Principal;
  let stranger: Principal;

  async function workspaceWithUser(): Promise<{ workspaceId: string; userId: string }> {
    const workspace = await prisma.workspace.create({ data: { name: 'presets' } });
    const user = await prisma.user.create({
      data: { email: `${randomUUID()}@example.com`, name: 'Ada', defaultWorkspaceId: workspace.id },
    });
    await prisma.workspaceMember.create({ data: { workspaceId: workspace.id, userId: user.id, role: 'owner' } });
    return { workspaceId: workspace.id, userId: user.id };
  }

  const create = (slug: string, payload: Record<string, unknown>, principal = admin) =>
    rpc.send<PresetView>(SUBJECTS.management.presetsCreateVersion, { principal, slug, body: payload });

  /** Settles every call and tells the statuses apart: 200 for a view, else the error's status. */
  const settle = (calls: Array<Promise<PresetView>>) =>
    Promise.all(
      calls.map((call) =>
        call.then(
          (view) => ({ status: 200, view }),
          (error: GatewayError) => ({ status: error.status, view: null }),
        ),
      ),
    );

  const storedVersions = async (slug: string, workspaceId = admin.workspaceId) =>
    (await prisma.presetVersion.findMany({ where: { preset: { workspaceId, slug } }, orderBy: { version: 'asc' } })).map(
      (row) => row.version,
    );

  beforeAll(async () => {
    ({ service, nats, rpc } = await startManagement('presets-spec', { rpcTimeoutMs: 15_000 }));
    const mine = await workspaceWithUser();
    const theirs = await workspaceWithUser();
    admin = principalFixture('a'.repeat(64), { ...mine, keyKind: 'management' });
    stranger = principalFixture('b'.repeat(64), { ...theirs, keyKind: 'management' });
  });

  afterAll(async () => {
    await nats?.close();
    await service?.close();
    await sql.end();
    await prisma.$disconnect();
  });

  it('creates a preset at version 1 from a chat body, keeping only config fields and the system prompt', async () => {
    const view = await create(
      'support',
      body({
        model: 'sim/gpt-4o-mini',
        temperature: 0.3,
        stream: true,
        session_id: 's-1',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'ignored' },
        ],
      }),
    );
    expect(view).toMatchObject({
      name: 'support',
      slug: 'support',
      description: null,
      status: 'active',
      workspace_id: admin.workspaceId,
      creator_user_id: admin.userId,
      designated_version_id: view.designated_version.id,
      designated_version: {
        preset_id: view.id,
        version: 1,
        config: { model: 'sim/gpt-4o-mini', temperature: 0.3 },
        system_prompt: 'Be brief.',
        creator_id: admin.userId,
      },
    });
    expect(view.status_updated_at).toBe(view.created_at);
  });

  it('adds version 2, designates it, and keeps version 1 readable', async () => {
    await create('versions', body({ model: 'sim/a', temperature: 1 }));
    const second = await create('versions', body({ model: 'sim/b', messages: [{ role: 'system', content: 'v2' }] }));
    expect(second.designated_version).toMatchObject({ version: 2, config: { model: 'sim/b' }, system_prompt: 'v2' });

    const fetched = await rpc.send<PresetView>(SUBJECTS.management.presetsGet, { principal: admin, slug: 'versions' });
    expect(fetched.designated_version_id).toBe(second.designated_version.id);
    expect(fetched.name).toBe('versions');

    const page = await rpc.send<PageView<PresetVersionView>>(SUBJECTS.management.presetsVersionsList, {
      principal: admin,
      slug: 'versions',
      offset: 0,
      limit: 100,
    });
    expect(page.total_count).toBe(2);
    expect(page.data.map((version) => [version.version, version.config.model])).toEqual([
      [1, 'sim/a'],
      [2, 'sim/b'],
    ]);
    const first = await rpc.send<PresetVersionView>(SUBJECTS.management.presetsVersionGet, {
      principal: admin,
      slug: 'versions',
      version: 1,
    });
    expect(first).toMatchObject({ version: 1, config: { model: 'sim/a', temperature: 1 }, system_prompt: null });

    const resolved = await rpc.send<PresetResolveReply>(SUBJECTS.management.presetsResolve, {
      workspaceId: admin.workspaceId,
      slug: 'versions',
    });
    expect(resolved).toEqual({
      slug: 'versions',
      presetId: second.id,
      versionId: second.designated_version.id,
      version: 2,
      config: { model: 'sim/b' },
      systemPrompt: 'v2',
    });
  });

  it('lists the workspace presets newest first with a total, paged by offset and limit', async () => {
    const workspace = await workspaceWithUser();
    const owner = principalFixture('c'.repeat(64), { ...workspace, keyKind: 'management' });
    for (const slug of ['p-one', 'p-two', 'p-three']) await create(slug, body(), owner);
    const all = await rpc.send<PageView<PresetView>>(SUBJECTS.management.presetsList, { principal: owner, offset: 0, limit: 100 });
    expect(all.total_count).toBe(3);
    expect(all.data.map((preset) => preset.slug)).toEqual(['p-three', 'p-two', 'p-one']);
    const second = await rpc.send<PageView<PresetView>>(SUBJECTS.management.presetsList, { principal: owner, offset: 1, limit: 1 });
    expect(second).toMatchObject({ total_count: 3, data: [{ slug: 'p-two' }] });
  });

  it('answers 404 for unknown slugs, unknown versions and presets of another workspace', async () => {
    await create('private', body());
    const calls: Array<[string, Record<string, unknown>]> = [
      [SUBJECTS.management.presetsGet, { principal: stranger, slug: 'private' }],
      [SUBJECTS.management.presetsGet, { principal: admin, slug: 'nope' }],
      [SUBJECTS.management.presetsVersionsList, { principal: stranger, slug: 'private', offset: 0, limit: 10 }],
      [SUBJECTS.management.presetsVersionGet, { principal: admin, slug: 'private', version: 2 }],
      [SUBJECTS.management.presetsResolve, { workspaceId: stranger.workspaceId, slug: 'private' }],
    ];
    for (const [subject, payload] of calls) {
      await expect(rpc.send(subject, payload), subject).rejects.toMatchObject({ status: 404, errorType: 'not_found' });
    }
    const theirs = await rpc.send<PageView<PresetView>>(SUBJECTS.management.presetsList, { principal: stranger, offset: 0, limit: 100 });
    expect(theirs.data.map((preset) => preset.slug)).not.toContain('private');
  });

  it('refuses a standard key with 403 on every preset operation', async () => {
    const standard = { ...admin, keyKind: 'standard' as const };
    await expect(create('by-standard', body(), standard)).rejects.toMatchObject({ status: 403, errorType: 'permission_denied' });
    await expect(rpc.send(SUBJECTS.management.presetsList, { principal: standard, offset: 0, limit: 1 })).rejects.toMatchObject({
      status: 403,
    });
    await expect(rpc.send(SUBJECTS.management.presetsGet, { principal: standard, slug: 'support' })).rejects.toMatchObject({ status: 403 });
    expect(await storedVersions('by-standard')).toEqual([]);
  });

  it('validates the body again on receipt: nothing out of bounds is stored', async () => {
    for (const bad of [body({ temperature: 3 }), { messages: [] }, body({ reasoning_effort: 'high', reasoning: { effort: 'low' } })]) {
      await expect(create('checked', bad)).rejects.toMatchObject({ status: 400, errorType: 'invalid_request' });
    }
    expect(await storedVersions('checked')).toEqual([]);
  });

  it('publishes presets.changed for the workspace when a version is designated', async () => {
    const received: unknown[] = [];
    const subscription = nats.connection.subscribe(EVENTS.presetsChanged, {
      callback: (_error, message) => {
        received.push(message.json());
      },
    });
    await nats.connection.flush();
    await create('evented', body());
    await expect.poll(() => received).toContainEqual({ pattern: EVENTS.presetsChanged, data: { workspaceId: admin.workspaceId } });
    subscription.unsubscribe();
  });

  it('gives 409 to a writer whose version number was taken meanwhile, and stores no duplicate', async () => {
    await create('taken', body({ temperature: 0.1 }));
    const presetId = (
      await prisma.preset.findUniqueOrThrow({ where: { workspaceId_slug: { workspaceId: admin.workspaceId, slug: 'taken' } } })
    ).id;
    // Another writer holds version 2 in an open transaction; the request blocks on the index until it commits.
    const rival = await sql.connect();
    await rival.query('BEGIN');
    await rival.query(
      `INSERT INTO preset_versions (id, preset_id, version, config, creator_id, updated_at) VALUES ($1, $2, 2, '{}', $3, now())`,
      [randomUUID(), presetId, admin.userId],
    );
    const pending = settle([create('taken', body({ temperature: 0.2 }))]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await rival.query('COMMIT');
    rival.release();
    const [result] = await pending;
    expect(result.status).toBe(409);
    expect(await storedVersions('taken')).toEqual([1, 2]);
  });

  it('gives 409 when latest_version moved under the writer (compare-and-set), and rolls its version back', async () => {
    await create('moved', body());
    const rival = await sql.connect();
    await rival.query('BEGIN');
    await rival.query(`UPDATE presets SET latest_version = 5 WHERE workspace_id = $1 AND slug = 'moved'`, [admin.workspaceId]);
    const pending = settle([create('moved', body({ temperature: 0.9 }))]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await rival.query('COMMIT');
    rival.release();
    const [result] = await pending;
    expect(result.status).toBe(409);
    expect(await storedVersions('moved')).toEqual([1]);
  });

  /**
   * The guarantee under concurrent posts to one slug: every answer is 200 or 409; the 200s
   * carry distinct version numbers; the stored versions are exactly 1..N, so precisely the
   * 200s' versions were added; the designated version is N.
   */
  it.each([
    ['an existing slug', true],
    ['a new slug', false],
  ])('keeps versions unique and gapless under 12 concurrent posts to %s', async (_name, existsBefore) => {
    const slug = `race-${existsBefore ? 'old' : 'new'}`;
    if (existsBefore) await create(slug, body());
    const before = existsBefore ? 1 : 0;
    const results = await settle(Array.from({ length: 12 }, (_, index) => create(slug, body({ seed: index }))));
    const statuses = results.map((result) => result.status);
    expect(
      statuses.every((status) => status === 200 || status === 409),
      statuses.join(','),
    ).toBe(true);
    const won = results.flatMap((result) => (result.view ? [result.view.designated_version.version] : [])).sort((a, b) => a - b);
    expect(won.length).toBeGreaterThan(0);
    expect(new Set(won).size).toBe(won.length);
    const stored = await storedVersions(slug);
    expect(stored).toEqual(Array.from({ length: before + won.length }, (_, index) => index + 1));
    expect(stored.slice(before)).toEqual(won);
    const preset = await prisma.preset.findFirstOrThrow({
      where: { workspaceId: admin.workspaceId, slug },
      include: { designatedVersion: true },
    });
    expect(preset.designatedVersion?.version).toBe(stored.length);
    expect(preset.latestVersion).toBe(stored.length);
    console.info(`presets race on ${slug}: ${won.length} x 200, ${statuses.filter((status) => status === 409).length} x 409`);
  });
});
