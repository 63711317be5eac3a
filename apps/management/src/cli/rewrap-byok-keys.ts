import 'reflect-metadata';
import { PrismaPg } from '@prisma/adapter-pg';
import { KeyRing, validateEnv } from '@gw/config';
import { ManagementEnv } from '../env.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { rewrapToCurrentKek } from '../byok/rewrap.js';

/**
 * `node apps/management/dist/cli/rewrap-byok-keys.js`, with management's own environment
 * (DATABASE_URL, BYOK_KEKS with the new KEK first and the old ones after it).
 * Moves every BYOK credential to the current KEK and says whether older KEKs may now go.
 */
const env = validateEnv(ManagementEnv);
const ring = KeyRing.fromEnv(env.BYOK_KEKS);
const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: env.DATABASE_URL, max: 1 }) });

try {
  const result = await rewrapToCurrentKek(prisma, ring);
  console.log(`re-wrapped ${result.rewrapped} BYOK credential(s) under KEK "${ring.current.version}"`);
  if (result.stranded.length === 0) {
    console.log(`every credential is under "${ring.current.version}": older KEKs can be removed from BYOK_KEKS`);
  } else {
    for (const { kekVersion, count } of result.stranded) {
      console.error(
        `${count} credential(s) are under KEK "${kekVersion}", which BYOK_KEKS does not hold: add it back (after the current one) and run again`,
      );
    }
    process.exitCode = 1;
  }
} finally {
  await prisma.$disconnect();
}
