import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';

const DAY_MS = 86_400_000;
const SWEEP_EVERY_MS = 60 * 60_000;
const DELETE_BATCH = 10_000;
/** One replica sweeps at a time (the others skip that round). */
const SWEEP_LOCK = 31_119;

/**
 * The audit log's retention: every hour one replica (an advisory lock, as inference's generation
 * retention) deletes the rows older than AUDIT_LOG_RETENTION_DAYS, in batches on the `created_at`
 * index so no statement holds many rows. The rows are few per change, so no partitions.
 */
@Injectable()
export class AuditRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AuditRetention.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly prisma: PrismaService,
    @Inject(MANAGEMENT_ENV) private readonly env: ManagementEnv,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => void this.sweep().catch((error: Error) => this.logger.warn(`Audit log sweep failed: ${error.message}`));
    run();
    this.timer = setInterval(run, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** One round: the rows deleted, or null when another replica holds the round. */
  async sweep(now = Date.now()): Promise<number | null> {
    const client = await this.prisma.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [SWEEP_LOCK]);
      if (!rows[0]?.locked) return null;
      try {
        const cutoff = new Date(now - this.env.AUDIT_LOG_RETENTION_DAYS * DAY_MS);
        let deleted = 0;
        for (;;) {
          const { rowCount } = await client.query(
            `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE created_at < $1 LIMIT ${DELETE_BATCH})`,
            [cutoff],
          );
          deleted += rowCount ?? 0;
          if ((rowCount ?? 0) < DELETE_BATCH) break;
        }
        if (deleted > 0) this.logger.log(`Deleted ${deleted} audit log rows older than ${cutoff.toISOString()}`);
        return deleted;
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SWEEP_LOCK]);
      }
    } finally {
      client.release();
    }
  }
}
