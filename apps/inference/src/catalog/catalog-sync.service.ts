import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { CatalogChanged, type CatalogStateView } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { counter, gauge } from '@gw/metrics';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { buildSnapshot } from './catalog-snapshot.js';
import { diffCatalogs } from './catalog-diff.js';
import { canonicalCatalogText, catalogPaths, parseCatalogDocument, readCatalogDocument, type CatalogDocument } from './catalog.loader.js';
import { CatalogService } from './catalog.service.js';
import { CatalogVersionsStore, type StoredCatalogVersion } from './catalog-versions.store.js';

const loadFailures = counter(
  'inference_catalog_load_failures_total',
  'Stored catalog versions this replica could not load (it kept the last good one)',
  [],
);

/**
 * Keeps this replica's in-memory catalog on the newest stored version. At start it reconciles
 * the catalog files with the database (the files seed it, and a changed file becomes a new
 * version unless the database was edited since: then neither is applied over the other and the
 * conflict is reported). Then every `events.catalog.changed` with a newer version, and a poll
 * that catches a missed event, load the newest version; one that does not load (an unset
 * `${VAR}` here, a schema this code does not know) leaves the last good version serving and is
 * reported in health and metrics.
 */
@Injectable()
export class CatalogSync implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CatalogSync.name);
  private subscription: Subscription | undefined;
  private poll: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  private failed: { version: number; error: string } | undefined;
  private fileConflict: string | undefined;
  private loadedAt: Date | undefined;
  private fileText = '';
  private fileHash = '';

  constructor(
    @Inject(INFERENCE_ENV) private readonly env: InferenceEnv,
    private readonly catalog: CatalogService,
    private readonly store: CatalogVersionsStore,
    private readonly nats: ResilientNatsConnection,
  ) {
    const catalogVersion = () => this.catalog.version;
    const staleNow = () => this.failed !== undefined;
    const conflictNow = () => this.fileConflict !== undefined;
    gauge(
      'inference_catalog_version',
      'The catalog version this replica serves (0: its files, the database not read yet)',
      [],
      function () {
        this.set(catalogVersion());
      },
    );
    gauge('inference_catalog_stale', '1 when a newer catalog version exists that this replica could not load', [], function () {
      this.set(staleNow() ? 1 : 0);
    });
    gauge('inference_catalog_file_conflict', '1 when the catalog files changed while the database had edits of its own', [], function () {
      this.set(conflictNow() ? 1 : 0);
    });
  }

  async onModuleInit(): Promise<void> {
    const paths = catalogPaths(this.env.MODEL_CATALOG_PATHS);
    const document = readCatalogDocument(paths);
    this.fileText = canonicalCatalogText(document);
    this.fileHash = createHash('sha256').update(this.fileText).digest('hex');
    try {
      await this.reconcileFiles(document, `file:${paths.map((path) => basename(path)).join(',')}`);
      await this.refresh();
    } catch (error) {
      // The database is down at start: serve the files and catch up at the next poll.
      this.logger.error(`The stored catalog could not be read; serving the catalog files: ${(error as Error).message}`);
    }
    this.subscription = this.nats.connection.subscribe(CatalogChanged.subject, {
      callback: (_error, message) => {
        const version = versionOf(message.data);
        if (version !== undefined && version > this.catalog.version) void this.refresh();
      },
    });
    this.poll = setInterval(() => void this.pollOnce(), this.env.CATALOG_POLL_MS);
    this.poll.unref();
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
    clearInterval(this.poll);
  }

  state(): CatalogStateView {
    return {
      version: this.catalog.version,
      state: this.failed ? 'stale' : 'ok',
      ...(this.loadedAt ? { loaded_at: this.loadedAt.toISOString() } : {}),
      ...(this.failed ? { failed_version: this.failed.version, error: this.failed.error } : {}),
      ...(this.fileConflict ? { file_conflict: this.fileConflict } : {}),
    };
  }

  /** Tells every replica that `version` is stored (this one loads it before returning). */
  async announce(version: number): Promise<void> {
    await this.refresh();
    try {
      this.nats.connection.publish(CatalogChanged.subject, JSON.stringify({ pattern: CatalogChanged.subject, data: { version } }));
    } catch (error) {
      // The other replicas then catch up at their next poll.
      this.logger.warn(`Catalog version ${version} stored but not announced: ${(error as Error).message}`);
    }
  }

  /** Loads the newest stored version if it is newer than the one served; one load at a time. */
  refresh(): Promise<void> {
    this.refreshing = this.refreshing
      .then(() => this.loadNewest())
      .catch((error: unknown) => {
        this.logger.warn(`The stored catalog could not be read: ${(error as Error).message}`);
      });
    return this.refreshing;
  }

  private async pollOnce(): Promise<void> {
    try {
      const newest = await this.store.latestVersion();
      if (newest > this.catalog.version && newest !== this.failed?.version) await this.refresh();
    } catch (error) {
      this.logger.warn(`Catalog poll failed: ${(error as Error).message}`);
    }
  }

  private async loadNewest(): Promise<void> {
    const latest = await this.store.latest();
    if (!latest || latest.version <= this.catalog.version) return;
    if (this.fileConflict && latest.document === this.fileText) await this.markFilesSeen(latest.version);
    if (this.failed?.version === latest.version) return;
    try {
      const snapshot = buildSnapshot(parseCatalogDocument(JSON.parse(latest.document)), latest.version);
      this.catalog.install(snapshot);
      this.loadedAt = new Date();
      this.failed = undefined;
      this.logger.log(`Catalog version ${latest.version} loaded (${latest.action} by ${latest.author})`);
    } catch (error) {
      this.failed = { version: latest.version, error: (error as Error).message };
      loadFailures.inc();
      this.logger.error(
        `Catalog version ${latest.version} could not be loaded; still serving ${this.catalog.version}: ${this.failed.error}`,
      );
    }
  }

  /** Seeds an empty database from the files, applies a changed file, or reports a conflict. */
  private async reconcileFiles(document: CatalogDocument, author: string): Promise<void> {
    const { result } = await this.store.write<string | undefined>((latest, seen) => {
      const hash = this.fileHash;
      if (!latest) {
        const changes = diffCatalogs({ providers: [], models: [] }, document);
        return {
          append: { document: this.fileText, author, action: 'seed', source: 'file', changes },
          fileSeen: { hash, version: 'new' },
          result: undefined,
        };
      }
      if (seen?.hash === hash) return { result: undefined };
      if (latest.document === this.fileText) return { fileSeen: { hash, version: latest.version }, result: undefined };
      if (seen === undefined || seen.version === latest.version) {
        const changes = diffCatalogs(JSON.parse(latest.document), document);
        return {
          append: { document: this.fileText, author, action: 'file', source: 'file', changes },
          fileSeen: { hash, version: 'new' },
          result: undefined,
        };
      }
      return { result: conflictText(seen.version, latest) };
    });
    this.fileConflict = result;
    if (result) this.logger.error(`Catalog files not applied: ${result}`);
  }

  private async markFilesSeen(version: number): Promise<void> {
    await this.store.write(() => ({ fileSeen: { hash: this.fileHash, version }, result: undefined }));
    this.fileConflict = undefined;
  }
}

function conflictText(seenVersion: number, latest: StoredCatalogVersion): string {
  return (
    `the catalog files changed since version ${seenVersion}, and the database has versions up to ${latest.version} ` +
    `(last: ${latest.action} by ${latest.author}); import the files' catalog, or export the database's into the files`
  );
}

function versionOf(data: Uint8Array): number | undefined {
  try {
    const event = JSON.parse(new TextDecoder().decode(data)) as { data?: { version?: unknown } };
    const version = event.data?.version;
    return typeof version === 'number' && Number.isInteger(version) ? version : undefined;
  } catch {
    return undefined;
  }
}
