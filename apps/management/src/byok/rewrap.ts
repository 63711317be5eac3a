import type { PrismaClient } from '../generated/prisma/client.js';
import { credentialContext, rewrapSecret, type KeyRing } from '@gw/config';

export interface RewrapResult {
  rewrapped: number;
  /** Credentials still under an old KEK because that KEK is not in the ring: they need it back to be moved. */
  stranded: Array<{ kekVersion: string; count: number }>;
}

/**
 * KEK rotation: re-wraps the data key of every credential not yet under the current KEK
 * (the secrets' ciphertexts are untouched). Each row is updated only if its `kek_version`
 * is still the one read, so it is safe to run beside live replicas and to run again.
 * When `stranded` is empty, older KEKs can be removed from `BYOK_KEKS`.
 */
export async function rewrapToCurrentKek(prisma: PrismaClient, ring: KeyRing, batchSize = 200): Promise<RewrapResult> {
  const current = ring.current.version;
  const known = ring.versions.filter((version) => version !== current);
  let rewrapped = 0;
  for (;;) {
    const batch = await prisma.byokCredential.findMany({
      where: { kekVersion: { in: known } },
      select: { id: true, workspaceId: true, encryptedSecret: true, wrappedDataKey: true, kekVersion: true },
      orderBy: { id: 'asc' },
      take: batchSize,
    });
    if (batch.length === 0) break;
    for (const row of batch) {
      const sealed = rewrapSecret(ring, row, credentialContext(row.id, row.workspaceId));
      const { count } = await prisma.byokCredential.updateMany({
        where: { id: row.id, kekVersion: row.kekVersion },
        data: { wrappedDataKey: sealed.wrappedDataKey, kekVersion: sealed.kekVersion },
      });
      rewrapped += count;
    }
  }
  const leftovers = await prisma.byokCredential.groupBy({
    by: ['kekVersion'],
    where: { kekVersion: { not: current } },
    _count: { _all: true },
  });
  return { rewrapped, stranded: leftovers.map((entry) => ({ kekVersion: entry.kekVersion, count: entry._count._all })) };
}
