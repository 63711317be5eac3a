import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CATALOG_AUDIT_BATCH, CatalogAuditAppend, type CatalogAuditRecord } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { counter } from '@gw/metrics';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { catalogAuditRecords } from './catalog-audit-records.js';
import { fromRow, VERSION_COLUMNS, type VersionRow } from './catalog-versions.store.js';
import type { CatalogDocument } from './catalog.loader.js';

const relayed = counter('inference_catalog_audit_records_total', 'Catalog audit rows relayed to the audit log', []);
const relayFailures = counter(
  'inference_catalog_audit_relay_failures_total',
  'Rounds that could not relay catalog versions to the audit log (they stay pending and are sent again)',
  [],
);

/** Versions relayed per round (each may hold many records, sent in chunks). */
const VERSIONS_PER_ROUND = 20;

/**
 * The catalog's versions are the outbox of their audit rows: a version is stored in
 * the change's own transaction, with `audited_at` null. This relay sends the rows of every
 * version not yet audited to management, then marks it, so a replica that dies in between leaves
 * it pending for the next round; management stores each row once (its `origin` is unique).
 * Replicas take versions with `FOR UPDATE SKIP LOCKED`, so two never relay the same one at once.
 */
@Injectable()
export class CatalogAuditRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(CatalogAuditRelay.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly prisma: PrismaService,
    @Inject(INFERENCE_ENV) private readonly env: InferenceEnv,
    private readonly rpc: RpcClient,
  ) {}

  private send(records: CatalogAuditRecord[]): Promise<unknown> {
    return this.rpc.send(CatalogAuditAppend, { records });
  }

  onApplicationBootstrap(): void {
    void this.drain();
    this.timer = setInterval(() => void this.drain(), this.env.CATALOG_POLL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Relays every pending version (one round at a time here); the versions relayed. Never throws. */
  drain(): Promise<number> {
    this.running = this.running.then(async () => {
      let total = 0;
      try {
        for (let round = await this.round(); round > 0; round = await this.round()) total += round;
      } catch (error) {
        relayFailures.inc();
        this.logger.warn(`Catalog versions not relayed to the audit log yet: ${(error as Error).message}`);
      }
      return total;
    });
    return this.running;
  }

  /** One transaction: lock up to VERSIONS_PER_ROUND pending versions, send their rows, mark them. */
  private async round(): Promise<number> {
    const client = await this.prisma.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM catalog_versions WHERE audited_at IS NULL ORDER BY version LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [VERSIONS_PER_ROUND],
      );
      for (const row of rows) {
        const version = fromRow(row);
        const previous = await client.query<{ document: string }>('SELECT document FROM catalog_versions WHERE version = $1', [
          version.version - 1,
        ]);
        const before = previous.rows[0] && (JSON.parse(previous.rows[0].document) as CatalogDocument);
        const records = catalogAuditRecords(version, before);
        for (let start = 0; start < records.length; start += CATALOG_AUDIT_BATCH)
          await this.send(records.slice(start, start + CATALOG_AUDIT_BATCH));
        relayed.inc(records.length);
      }
      if (rows.length > 0)
        await client.query('UPDATE catalog_versions SET audited_at = now() WHERE version = ANY($1::int[])', [
          rows.map((row) => row.version),
        ]);
      await client.query('COMMIT');
      return rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
