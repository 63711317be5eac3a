import { Inject, Injectable } from '@nestjs/common';
import type { KeyUsedEntry } from '@gw/contracts';
import type { PrismaClient } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';

/**
 * Applies a gateway's batch of "key last seen at" times with one UPDATE, moving
 * `last_used_at` forward only: batches from several gateways may arrive in any order.
 */
@Injectable()
export class LastUsedService {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaClient) {}

  async apply(entries: readonly KeyUsedEntry[]): Promise<number> {
    const latest = new Map<string, number>();
    for (const entry of entries) {
      const at = Date.parse(entry.lastUsedAt);
      if (!(at <= (latest.get(entry.keyHash) ?? -Infinity))) latest.set(entry.keyHash, at);
    }
    if (latest.size === 0) return 0;
    const hashes = [...latest.keys()];
    const times = hashes.map((hash) => new Date(latest.get(hash)!).toISOString());
    return this.prisma.$executeRaw`
      UPDATE api_keys AS k SET last_used_at = v.last_used_at
      FROM unnest(${hashes}::text[], ${times}::timestamptz[]) AS v(hash, last_used_at)
      WHERE k.hash = v.hash AND (k.last_used_at IS NULL OR k.last_used_at < v.last_used_at)`;
  }
}
