import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '@gw/db-tools';
import { generateBusSeeds, generatePrincipalKeys, publicKeyOf } from './nats-auth.ts';

/*
 * The bus's configuration for deployments, from the subject table in
 * @gw/contracts (build it first: `npx nx run contracts:build`):
 *
 *   node tools/stack/src/nats-config.ts permissions   writes k8s/inference-gateway/files/nats-permissions.json,
 *                                                     which the chart turns into nats-server's authorization block
 *   node tools/stack/src/nats-config.ts credentials   prints a new nkey per service: the seed goes into that
 *                                                     service's Secret (NATS_NKEY_SEED), the public key into
 *                                                     the chart's natsAuth.publicKeys; and a new key for the
 *                                                     gateway's principals (BUS_PRINCIPAL_SIGNING_KEY in its
 *                                                     Secret, natsAuth.principalPublicKeys)
 *   node tools/stack/src/nats-config.ts compose       docker compose: appends NATS_NKEY_SEED_<SERVICE> and the
 *                                                     principal key pair (BUS_PRINCIPAL_*) to docker/.env
 *                                                     (kept if present) and writes docker/nats/authorization.conf
 */

export const CHART_PERMISSIONS_FILE = join(WORKSPACE_ROOT, 'k8s/inference-gateway/files/nats-permissions.json');

/** Each service's permissions keyed by its user name, as the chart reads them. */
export async function chartPermissions(): Promise<string> {
  const { BUS_USERS, busPermissions } = await import('@gw/contracts/bus-permissions');
  return `${JSON.stringify(Object.fromEntries(BUS_USERS.map((user) => [user, busPermissions(user)])), null, 2)}\n`;
}

const VALUES_KEYS: Record<string, string> = {
  'api-gateway': 'apiGateway',
  management: 'management',
  inference: 'inference',
  batch: 'batch',
  'intern-signing': 'internSigning',
};

async function main(command: string | undefined): Promise<void> {
  if (command === 'permissions') {
    writeFileSync(CHART_PERMISSIONS_FILE, await chartPermissions());
    console.log(`wrote ${CHART_PERMISSIONS_FILE}`);
  } else if (command === 'credentials') {
    const seeds = await generateBusSeeds();
    console.log('# Secrets (one per service, key NATS_NKEY_SEED): keep these out of version control');
    for (const [user, seed] of Object.entries(seeds)) console.log(`${user}: NATS_NKEY_SEED=${seed}`);
    console.log('\n# values.yaml (public keys, not secret)\nnatsAuth:\n  publicKeys:');
    for (const [user, seed] of Object.entries(seeds)) console.log(`    ${VALUES_KEYS[user]}: ${publicKeyOf(seed)}`);
    const principal = generatePrincipalKeys();
    console.log(`  principalPublicKeys: ${principal.publicKey}`);
    console.log(`\n# The api-gateway's Secret, beside its seed: BUS_PRINCIPAL_SIGNING_KEY=${principal.signingKey}`);
  } else if (command === 'compose') {
    const envFile = join(WORKSPACE_ROOT, 'docker/.env');
    const env = existsSync(envFile) ? readFileSync(envFile, 'utf8') : '';
    const variable = (user: string) => `NATS_NKEY_SEED_${user.toUpperCase().replace(/-/g, '_')}`;
    const fresh = await generateBusSeeds();
    const seeds = Object.fromEntries(
      Object.entries(fresh).map(([user, seed]) => [user, new RegExp(`^${variable(user)}=(SU[A-Z2-7]{56})$`, 'm').exec(env)?.[1] ?? seed]),
    ) as typeof fresh;
    const missing = Object.keys(seeds).filter((user) => !new RegExp(`^${variable(user)}=`, 'm').test(env));
    const lines = missing.map((user) => `${variable(user)}=${seeds[user as keyof typeof seeds]}`);
    // The gateway's principal key pair, kept if present.
    if (!/^BUS_PRINCIPAL_SIGNING_KEY=/m.test(env)) {
      const principal = generatePrincipalKeys();
      lines.push(`BUS_PRINCIPAL_SIGNING_KEY=${principal.signingKey}`, `BUS_PRINCIPAL_PUBLIC_KEYS=${principal.publicKey}`);
      missing.push('principal');
    }
    if (lines.length > 0) {
      appendFileSync(envFile, `${env.endsWith('\n') || env === '' ? '' : '\n'}${lines.join('\n')}\n`, { mode: 0o600 });
    }
    const { natsAuthorization } = await import('@gw/contracts/bus-permissions');
    const publicKeys = Object.fromEntries(Object.entries(seeds).map(([user, seed]) => [user, publicKeyOf(seed)])) as Parameters<
      typeof natsAuthorization
    >[0];
    writeFileSync(
      join(WORKSPACE_ROOT, 'docker/nats/authorization.conf'),
      `authorization: ${JSON.stringify(natsAuthorization(publicKeys))}\n`,
    );
    console.log(
      `${missing.length > 0 ? `added ${missing.map((user) => (user === 'principal' ? 'BUS_PRINCIPAL_*' : variable(user))).join(', ')} to` : 'kept the seeds of'} docker/.env; wrote docker/nats/authorization.conf`,
    );
  } else {
    console.error('usage: node tools/stack/src/nats-config.ts permissions|credentials|compose');
    process.exitCode = 2;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv[2]);
