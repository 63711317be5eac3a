import type { INestMicroservice } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  SUBJECTS,
  type ApiKeyView,
  type AuthResolveReply,
  type ByokCredentialView,
  type KeysCreateReply,
  type Principal,
} from '@gw/contracts';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { testDatabaseUrl } from '@gw/testing';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey, type OwnerRef } from '../keys/key-issuer.js';
import { startManagement } from '../spec-helpers.js';

/*
 * One workspace rule for every resource. A request acts on the workspace it names
 * (workspace_id, when the key's user belongs to it) or else on the key's own workspace, never
 * on the user's default workspace. Before, keys and BYOK went to the user's default workspace
 * while presets and credits used the key's: a key of a second workspace whose user's default is
 * the first wrote its keys and credentials into the first.
 */
describe('the workspace of a request is the one it names or its key’s own', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  /** The user's default workspace. */
  let first: OwnerRef;
  /** A second workspace of the same user (an existing email given to keys:create). */
  let second: OwnerRef;
  let principal: Principal;

  beforeAll(async () => {
    ({ service, nats, rpc } = await startManagement('workspace-rule-spec'));
    const email = `two-workspaces-${randomUUID()}@example.com`;
    first = await createWorkspaceWithOwner(prisma, { workspaceName: 'First', email, userName: 'Owner' });
    const created = await createWorkspaceWithOwner(prisma, { workspaceName: 'Second', email, userName: 'Owner' });
    expect(created.userCreated).toBe(false);
    expect(created.userId).toBe(first.userId);
    second = created;
    const user = await prisma.user.findUniqueOrThrow({ where: { id: first.userId } });
    expect(user.defaultWorkspaceId).toBe(first.workspaceId);
    const key = await issueKey(prisma, second, { kind: 'management', name: 'second admin' });
    principal = (await rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash: key.key.hash })).principal!;
    expect(principal.workspaceId).toBe(second.workspaceId);
  });

  afterAll(async () => {
    await nats?.close();
    await service?.close();
    await prisma.$disconnect();
  });

  it('creates and lists keys in the key’s workspace, not the user’s default one', async () => {
    const created = await rpc.send<KeysCreateReply>(SUBJECTS.management.keysCreate, {
      principal,
      name: 'made by the second',
      includeByokInLimit: true,
    });
    expect(created.data.workspace_id).toBe(second.workspaceId);
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { hash: created.data.hash } })).workspaceId).toBe(second.workspaceId);
    const listed = await rpc.send<ApiKeyView[]>(SUBJECTS.management.keysList, { principal, includeDisabled: true, offset: 0 });
    expect(new Set(listed.map((key) => key.workspace_id))).toEqual(new Set([second.workspaceId]));
    expect(listed.map((key) => key.name)).toContain('made by the second');
  });

  it('creates and lists BYOK credentials in the key’s workspace', async () => {
    const credential = await rpc.send<ByokCredentialView>(SUBJECTS.management.byokCreate, {
      principal,
      credential: { provider: 'openai', key: 'sk-rule-test-0000000000' },
    });
    expect(credential.workspace_id).toBe(second.workspaceId);
    const page = await rpc.send<{ data: ByokCredentialView[] }>(SUBJECTS.management.byokList, { principal, offset: 0, limit: 100 });
    expect(page.data.map((entry) => entry.id)).toContain(credential.id);
    expect(new Set(page.data.map((entry) => entry.workspace_id))).toEqual(new Set([second.workspaceId]));
  });

  it('puts presets and credits in the same workspace', async () => {
    await rpc.send(SUBJECTS.management.presetsCreateVersion, {
      principal,
      slug: 'rule',
      body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }] },
    });
    const preset = await prisma.preset.findFirstOrThrow({ where: { slug: 'rule', workspaceId: second.workspaceId } });
    expect(preset.workspaceId).toBe(second.workspaceId);
    await rpc.send(SUBJECTS.management.creditsAdd, { principal, amount: '5' });
    const [a, b] = await Promise.all(
      [first, second].map((owner) => prisma.workspace.findUniqueOrThrow({ where: { id: owner.workspaceId } })),
    );
    expect(Number(a!.creditsTotal)).toBe(0);
    expect(Number(b!.creditsTotal)).toBe(5);
  });

  it('reaches another workspace of the user only when the request names it', async () => {
    const named = await rpc.send<KeysCreateReply>(SUBJECTS.management.keysCreate, {
      principal,
      name: 'named first',
      includeByokInLimit: true,
      workspaceId: first.workspaceId,
    });
    expect(named.data.workspace_id).toBe(first.workspaceId);
    const listed = await rpc.send<ApiKeyView[]>(SUBJECTS.management.keysList, {
      principal,
      includeDisabled: true,
      offset: 0,
      workspaceId: first.workspaceId,
    });
    expect(listed.map((key) => key.name)).toEqual(['named first']);
  });
});

describe('npm run keys:create -- --management --email (issue 9 item 10)', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const cli = (args: string[]) =>
    execFileSync(process.execPath, ['apps/management/dist/cli/create-key.js', ...args], {
      env: { ...process.env, MANAGEMENT_DATABASE_URL: databaseUrl },
      encoding: 'utf8',
    });
  const json = (args: string[]) =>
    JSON.parse(cli(['--json', ...args])) as { workspaceId: string; userId: string; email: string; userCreated: boolean };

  it('gives every new workspace a new owner by default, so its key cannot reach the others', () => {
    const a = json(['--management']);
    const b = json(['--management']);
    expect(a.workspaceId).not.toBe(b.workspaceId);
    expect(a.userId).not.toBe(b.userId);
    expect(a.userCreated && b.userCreated).toBe(true);
  });

  it('makes the email’s new user the owner, or adds the workspace to the user who has that email, and says which', () => {
    const email = `cli-${randomUUID()}@example.com`;
    const text = cli(['--management', '--email', email]);
    expect(text).toMatch(new RegExp(`a new user ${email} owns it`));
    const again = cli(['--management', '--email', email]);
    expect(again).toMatch(new RegExp(`the existing user ${email} owns it too \\(their default workspace is unchanged\\)`));
    const third = json(['--management', '--email', email]);
    expect(third.userCreated).toBe(false);
    expect(third.email).toBe(email);
  });
});
