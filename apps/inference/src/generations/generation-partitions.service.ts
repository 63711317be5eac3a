import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';

const DAY_MS = 86_400_000;
/** Days ahead whose partitions exist before any row needs them (a creation locks the table briefly). */
const DAYS_AHEAD = 7;
const MAINTAIN_EVERY_MS = 60 * 60_000;
const ROLLUP_DELETE_BATCH = 10_000;
/** One replica maintains at a time (the others skip that round). */
const MAINTENANCE_LOCK = 31_004;
const PARTITION_NAME = /^generations_(\d{4})(\d{2})(\d{2})$/;

/** The UTC day (`YYYY-MM-DD`) of an event's creation time, or undefined when it is no time. */
export function utcDay(createdAt: string): string | undefined {
  const time = Date.parse(createdAt);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString().slice(0, 10);
}

/** The partitions whose day ended more than `retentionDays` before `now`. */
export function expiredPartitions(names: readonly string[], now: number, retentionDays: number): string[] {
  const firstKept = new Date(Math.floor(now / DAY_MS) * DAY_MS - retentionDays * DAY_MS).toISOString().slice(0, 10);
  return names.filter((name) => {
    const match = PARTITION_NAME.exec(name);
    return match !== null && `${match[1]}-${match[2]}-${match[3]}` < firstKept;
  });
}

/**
 * The `generations` table's daily partitions: the writer asks for the days of each batch (created
 * once, remembered), and every hour one replica creates the week ahead, drops whole partitions
 * past GENERATION_RETENTION_DAYS (detached first, so readers and writers are not blocked), and
 * deletes rollup hours past GENERATION_ROLLUP_RETENTION_DAYS.
 */
@Injectable()
export class GenerationPartitions implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(GenerationPartitions.name);
  private readonly known = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly prisma: PrismaService,
    @Inject(INFERENCE_ENV) private readonly env: InferenceEnv,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => void this.maintain().catch((error: Error) => this.logger.warn(`Partition maintenance failed: ${error.message}`));
    run();
    this.timer = setInterval(run, MAINTAIN_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Every day of these creation times has its partition (an event older than the retention gets one back until the next round). */
  async ensure(createdAts: Iterable<string>): Promise<void> {
    const days = new Set<string>();
    for (const createdAt of createdAts) {
      const day = utcDay(createdAt);
      if (day && !this.known.has(day)) days.add(day);
    }
    for (const day of days) {
      await this.prisma.pool.query({
        name: 'inference_generation_partition_for',
        text: 'SELECT generation_partition_for($1::date)',
        values: [day],
      });
      this.known.add(day);
    }
  }

  /** One round; returns what it dropped (null when another replica holds the round). */
  async maintain(now = Date.now()): Promise<{ dropped: string[]; rollupHoursDeleted: number } | null> {
    const client = await this.prisma.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [MAINTENANCE_LOCK]);
      if (!rows[0]?.locked) return null;
      try {
        const today = Math.floor(now / DAY_MS) * DAY_MS;
        for (let ahead = 0; ahead <= DAYS_AHEAD; ahead++) {
          const day = new Date(today + ahead * DAY_MS).toISOString().slice(0, 10);
          await client.query('SELECT generation_partition_for($1::date)', [day]);
          this.known.add(day);
        }
        const partitions = await client.query<{ name: string }>(
          `SELECT child.relname AS name FROM pg_inherits JOIN pg_class child ON child.oid = pg_inherits.inhrelid
           WHERE pg_inherits.inhparent = 'generations'::regclass`,
        );
        const dropped = expiredPartitions(
          partitions.rows.map((row) => row.name),
          now,
          this.env.GENERATION_RETENTION_DAYS,
        );
        for (const name of dropped) {
          // Names come from the catalog and match PARTITION_NAME: safe to quote as identifiers.
          await client.query(`ALTER TABLE generations DETACH PARTITION "${name}" CONCURRENTLY`);
          await client.query(`DROP TABLE "${name}"`);
          this.known.delete(name.replace(PARTITION_NAME, '$1-$2-$3'));
        }
        let rollupHoursDeleted = 0;
        for (const [table, column] of [
          ['generation_rollups', 'hour'],
          ['generation_rollups_daily', 'day'],
          ['generation_rollups_daily_models', 'day'],
          ['generation_rollups_hourly_keys', 'hour'],
        ] as const) {
          for (;;) {
            const { rowCount } = await client.query(
              `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table}
                 WHERE ${column} < now() - make_interval(days => $1) LIMIT ${ROLLUP_DELETE_BATCH})`,
              [this.env.GENERATION_ROLLUP_RETENTION_DAYS],
            );
            if (table === 'generation_rollups') rollupHoursDeleted += rowCount ?? 0;
            if ((rowCount ?? 0) < ROLLUP_DELETE_BATCH) break;
          }
        }
        if (dropped.length > 0) this.logger.log(`Dropped generation partitions past retention: ${dropped.join(', ')}`);
        return { dropped, rollupHoursDeleted };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MAINTENANCE_LOCK]);
      }
    } finally {
      client.release();
    }
  }
}
