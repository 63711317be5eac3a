import { Injectable } from '@nestjs/common';
import type { CatalogDiffEntry } from '@gw/contracts';
import type pg from 'pg';
import { PrismaService } from '../prisma/prisma.service.js';

export interface StoredCatalogVersion {
  version: number;
  document: string;
  author: string;
  action: string;
  source: 'file' | 'admin';
  changes: CatalogDiffEntry[];
  createdAt: Date;
  /** The request that made it and the operator's address, for its audit rows. */
  requestId?: string;
  clientIp?: string;
}

/** A version to append: its document already validated and in its canonical spelling. */
export interface NewCatalogVersion {
  document: string;
  author: string;
  action: string;
  source: 'file' | 'admin';
  changes: CatalogDiffEntry[];
  requestId?: string;
  clientIp?: string;
}

/** The catalog files' content last reconciled with the stored catalog. */
export interface FileSeen {
  hash: string;
  version: number;
}

/** Every writer of the catalog takes this lock first, so two changes never both build on the same version. */
const CATALOG_LOCK = 7_300_030;

export const VERSION_COLUMNS = 'version, document, author, action, source, changes, created_at, request_id, client_ip';
const COLUMNS = VERSION_COLUMNS;

/** The stored versions of the catalog (this service's database), read and appended in order. */
@Injectable()
export class CatalogVersionsStore {
  constructor(private readonly prisma: PrismaService) {}

  async latest(): Promise<StoredCatalogVersion | undefined> {
    const { rows } = await this.prisma.pool.query<VersionRow>(`SELECT ${COLUMNS} FROM catalog_versions ORDER BY version DESC LIMIT 1`);
    return rows[0] && fromRow(rows[0]);
  }

  /** The newest version's number only (what a replica polls), 0 when none is stored. */
  async latestVersion(): Promise<number> {
    const { rows } = await this.prisma.pool.query<{ version: number | null }>('SELECT max(version) AS version FROM catalog_versions');
    return rows[0]?.version ?? 0;
  }

  async get(version: number): Promise<StoredCatalogVersion | undefined> {
    const { rows } = await this.prisma.pool.query<VersionRow>(`SELECT ${COLUMNS} FROM catalog_versions WHERE version = $1`, [version]);
    return rows[0] && fromRow(rows[0]);
  }

  /** The newest versions first. */
  async list(limit: number): Promise<StoredCatalogVersion[]> {
    const { rows } = await this.prisma.pool.query<VersionRow>(`SELECT ${COLUMNS} FROM catalog_versions ORDER BY version DESC LIMIT $1`, [
      limit,
    ]);
    return rows.map(fromRow);
  }

  /**
   * Runs `decide` under the catalog's lock with the latest version and the files' last seen
   * content, and stores what it returns as the next version (none: nothing is stored). Whatever
   * it decides is built on the version it was shown: an edit is never made over one it did not see.
   */
  async write<T>(
    decide: (latest: StoredCatalogVersion | undefined, seen: FileSeen | undefined) => Promise<CatalogWrite<T>> | CatalogWrite<T>,
  ): Promise<{ stored?: StoredCatalogVersion; result: T }> {
    const client = await this.prisma.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [CATALOG_LOCK]);
      const latestRows = await client.query<VersionRow>(`SELECT ${COLUMNS} FROM catalog_versions ORDER BY version DESC LIMIT 1`);
      const seenRows = await client.query<FileSeen>('SELECT hash, version FROM catalog_file_seen WHERE id = 1');
      const latest = latestRows.rows[0] && fromRow(latestRows.rows[0]);
      const decision = await decide(latest, seenRows.rows[0]);
      let stored: StoredCatalogVersion | undefined;
      if (decision.append) stored = await insert(client, (latest?.version ?? 0) + 1, decision.append);
      if (decision.fileSeen) {
        const version = decision.fileSeen.version === 'new' ? stored!.version : decision.fileSeen.version;
        await client.query(
          `INSERT INTO catalog_file_seen (id, hash, version, seen_at) VALUES (1, $1, $2, now())
           ON CONFLICT (id) DO UPDATE SET hash = EXCLUDED.hash, version = EXCLUDED.version, seen_at = EXCLUDED.seen_at`,
          [decision.fileSeen.hash, version],
        );
      }
      await client.query('COMMIT');
      return { stored, result: decision.result };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

export interface CatalogWrite<T> {
  append?: NewCatalogVersion;
  /** Records the files' content as reconciled, at a version or at the one appended (`'new'`). */
  fileSeen?: { hash: string; version: number | 'new' };
  result: T;
}

export interface VersionRow {
  version: number;
  document: string;
  author: string;
  action: string;
  source: string;
  changes: CatalogDiffEntry[];
  created_at: Date;
  request_id: string | null;
  client_ip: string | null;
}

async function insert(client: pg.PoolClient, version: number, entry: NewCatalogVersion): Promise<StoredCatalogVersion> {
  const { rows } = await client.query<VersionRow>(
    `INSERT INTO catalog_versions (version, document, author, action, source, changes, request_id, client_ip)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8) RETURNING ${COLUMNS}`,
    [
      version,
      entry.document,
      entry.author,
      entry.action,
      entry.source,
      JSON.stringify(entry.changes),
      entry.requestId ?? null,
      entry.clientIp ?? null,
    ],
  );
  return fromRow(rows[0]!);
}

export function fromRow(row: VersionRow): StoredCatalogVersion {
  return {
    version: row.version,
    document: row.document,
    author: row.author,
    action: row.action,
    source: row.source === 'file' ? 'file' : 'admin',
    changes: row.changes,
    createdAt: row.created_at,
    ...(row.request_id ? { requestId: row.request_id } : {}),
    ...(row.client_ip ? { clientIp: row.client_ip } : {}),
  };
}
