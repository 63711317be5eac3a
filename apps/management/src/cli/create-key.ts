import 'reflect-metadata';
import { PrismaPg } from '@prisma/adapter-pg';
import { KEY_KINDS, type KeyKind } from '@gw/contracts';
import { parseArgs } from 'node:util';
import { PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, grantCredits, issueKey } from '../keys/key-issuer.js';

/**
 * `npm run keys:create -- --management [--name N] [--workspace UUID --user UUID] [--credits N] [--json]`
 * Creates a key (and, unless one is named, a new workspace with its owner) and prints the
 * secret once. Only its sha256 is stored. `--credits N` adds N credits to the key's workspace
 * (the dev stack seeds SEED_CREDITS, default 100, so chats work once credits are enforced).
 */
const { values } = parseArgs({
  options: {
    management: { type: 'boolean', default: false },
    standard: { type: 'boolean', default: false },
    intern: { type: 'boolean', default: false },
    name: { type: 'string' },
    workspace: { type: 'string' },
    user: { type: 'string' },
    email: { type: 'string', default: 'admin@localhost' },
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
  const owner =
    values.workspace && values.user
      ? { workspaceId: values.workspace, userId: values.user }
      : await createWorkspaceWithOwner(prisma, { workspaceName: 'Default workspace', email: values.email, userName: 'Admin' });
  const issued = await issueKey(prisma, owner, { kind, name: values.name ?? `${kind} key` });
  if (values.credits !== undefined) await grantCredits(prisma, owner, values.credits);
  if (values.json) {
    console.log(JSON.stringify({ secret: issued.secret, hash: issued.key.hash, workspaceId: owner.workspaceId, userId: owner.userId, kind }));
  } else {
    console.log(`Created ${kind} key "${issued.key.name}" in workspace ${owner.workspaceId}`);
    console.log(`hash:   ${issued.key.hash}`);
    console.log(`secret: ${issued.secret}`);
    console.log('The secret is shown only now; store it somewhere safe.');
  }
} finally {
  await prisma.$disconnect();
}
