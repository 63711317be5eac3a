import 'reflect-metadata';
import { PrismaPg } from '@prisma/adapter-pg';
import { KEY_KINDS, type KeyKind } from '@gw/contracts';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, grantCredits, issueKey } from '../keys/key-issuer.js';

/**
 * `npm run keys:create -- --management [--email E] [--name N] [--workspace UUID --user UUID] [--credits N] [--json]`
 * Creates a key and prints the secret once (only its sha256 is stored). Without `--workspace`
 * and `--user` it first creates a new workspace owned by the user with `--email`: a new user
 * unless that email exists (then that user also owns the new workspace); without `--email`, a
 * new user `owner-<random>@localhost`. It says which happened. The key acts on its own
 * workspace. `--credits N` adds N credits to the key's workspace (the dev stack
 * seeds SEED_CREDITS, default 100, so chats work once credits are enforced).
 */
const { values } = parseArgs({
  options: {
    management: { type: 'boolean', default: false },
    standard: { type: 'boolean', default: false },
    intern: { type: 'boolean', default: false },
    name: { type: 'string' },
    workspace: { type: 'string' },
    user: { type: 'string' },
    email: { type: 'string' },
    json: { type: 'boolean', default: false },
    credits: { type: 'string' },
  },
});

const kinds = KEY_KINDS.filter((kind) => values[kind]);
if (kinds.length > 1) throw new Error('Choose one of --management, --standard, --intern');
const kind: KeyKind = kinds[0] ?? 'standard';
const url = process.env.MANAGEMENT_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/gateway_management';
const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });

try {
  if (Boolean(values.workspace) !== Boolean(values.user)) throw new Error('--workspace and --user go together');
  if (values.workspace && values.email) throw new Error('--email names the owner of a new workspace; it does not go with --workspace');
  const email = values.email ?? `owner-${randomBytes(4).toString('hex')}@localhost`;
  const owner =
    values.workspace && values.user
      ? { workspaceId: values.workspace, userId: values.user, userCreated: false }
      : await createWorkspaceWithOwner(prisma, { workspaceName: 'Default workspace', email, userName: email.split('@')[0]! });
  const issued = await issueKey(prisma, owner, { kind, name: values.name ?? `${kind} key` });
  if (values.credits !== undefined) await grantCredits(prisma, owner, values.credits);
  const newWorkspace = !values.workspace;
  const ownerText = !newWorkspace
    ? undefined
    : owner.userCreated
      ? `a new user ${email} owns it (their default workspace)`
      : `the existing user ${email} owns it too (their default workspace is unchanged)`;
  if (values.json) {
    console.log(
      JSON.stringify({
        secret: issued.secret,
        hash: issued.key.hash,
        workspaceId: owner.workspaceId,
        userId: owner.userId,
        kind,
        ...(newWorkspace ? { email, userCreated: owner.userCreated } : {}),
      }),
    );
  } else {
    if (ownerText) console.log(`Created workspace ${owner.workspaceId}: ${ownerText}`);
    console.log(`Created ${kind} key "${issued.key.name}" in workspace ${owner.workspaceId}`);
    console.log(`hash:   ${issued.key.hash}`);
    console.log(`secret: ${issued.secret}`);
    console.log('The secret is shown only now; store it somewhere safe.');
  }
} finally {
  await prisma.$disconnect();
}
