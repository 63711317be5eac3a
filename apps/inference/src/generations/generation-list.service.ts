import { Injectable } from '@nestjs/common';
import { GENERATION_PAGE_DEFAULT, type GenerationListView, type ListGenerationsQueryDto, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { QueryConfig } from 'pg';
import { CatalogService } from '../catalog/catalog.service.js';
import { servesEmbeddings } from '../catalog/model-kind.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { GENERATION_COLUMNS, GenerationReader } from './generation-reader.service.js';
import type { GenerationRow } from './generation-view.js';

/**
 * Newest first by (created_at, id), a keyset cursor. The statement holds only the filters asked
 * for, one prepared statement per set of them (named by it): a key's rows come by the
 * `(workspace_id, key_hash, created_at)` index (compared as char(64); a text comparison cast the
 * column and could use no index), a time range or cursor prunes day partitions (at plan time, or
 * at executor start in a generic plan). Planning each call unnamed cost
 * the database CPU on every call, with dozens of partitions. The API type is the catalog's kind of the model, so it
 * filters by the catalog's embeddings models (static data the rows do not copy).
 */
export function listStatement(workspaceId: string, filters: ListFilters, limit: number): QueryConfig {
  const values: unknown[] = [workspaceId];
  const where = ['workspace_id = $1::uuid'];
  let name = 'inference_list_generations_';
  // Each filter's letter names the statement (within PostgreSQL's 63 characters): one prepared statement per set of filters.
  const add = (tag: string, condition: (parameter: string) => string, value: unknown) => {
    values.push(value);
    where.push(condition(`$${values.length}`));
    name += tag;
  };
  if (filters.keyHash !== null) add('k', (p) => `key_hash = ${p}::char(64)`, filters.keyHash);
  if (filters.model !== undefined) add('m', (p) => `model = ${p}::text`, filters.model);
  if (filters.provider !== undefined) add('p', (p) => `provider = ${p}::text`, filters.provider);
  if (filters.from !== undefined) add('f', (p) => `created_at >= ${p}::timestamptz`, filters.from);
  if (filters.to !== undefined) add('t', (p) => `created_at < ${p}::timestamptz`, filters.to);
  if (filters.after !== undefined) {
    // The row comparison narrows the index scan on created_at; the plain bound prunes the partitions after it.
    add('a', (p) => `created_at <= ${p}::timestamptz`, filters.after.createdAt);
    const at = `$${values.length}`;
    add('i', (p) => `(created_at, id) < (${at}::timestamptz, ${p}::text)`, filters.after.id);
  }
  if (filters.userId !== undefined) add('u', (p) => `user_id = ${p}::uuid`, filters.userId);
  if (filters.status !== undefined) add('s', (p) => `status = ${p}::text::"GenerationStatus"`, filters.status);
  if (filters.finishReason !== undefined) add('r', (p) => `finish_reason = ${p}::text`, filters.finishReason);
  if (filters.costAbove !== undefined) add('c', (p) => `cost > ${p}::numeric`, filters.costAbove);
  if (filters.embeddingModels !== null)
    add(
      filters.embeddingsOnly ? 'e' : 'n',
      (p) => `${filters.embeddingsOnly ? '' : 'NOT '}COALESCE(model = ANY(${p}::text[]), false)`,
      filters.embeddingModels,
    );
  values.push(limit);
  return {
    name,
    text: `SELECT ${GENERATION_COLUMNS} FROM generations WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
    values,
  };
}

/** The list's filters as the statement takes them (absent: not filtered on). */
export interface ListFilters {
  keyHash: string | null;
  model?: string;
  provider?: string;
  from?: string;
  to?: string;
  after?: { createdAt: string; id: string };
  userId?: string;
  status?: string;
  finishReason?: string;
  costAbove?: string | number;
  embeddingModels: string[] | null;
  embeddingsOnly: boolean;
}

/** `inference.generations.list`: a page of the workspace's generations; an intern key's own only. */
@Injectable()
export class GenerationLister {
  constructor(
    private readonly prisma: PrismaService,
    private readonly reader: GenerationReader,
    private readonly catalog: CatalogService,
  ) {}

  async list(principal: Principal, query: ListGenerationsQueryDto, pageSize?: number): Promise<GenerationListView> {
    const limit = pageSize ?? query.limit ?? GENERATION_PAGE_DEFAULT;
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    // An intern key sees the generations it made, whatever key it names.
    const keyHash = principal.keyKind === 'intern' ? principal.keyHash : (query.key_hash ?? null);
    if (principal.keyKind === 'intern' && query.key_hash !== undefined && query.key_hash !== principal.keyHash)
      return { data: [], next_cursor: null };
    const embeddingModels =
      query.api_type === undefined
        ? null
        : this.catalog
            .all()
            .filter((model) => servesEmbeddings(model))
            .map((model) => model.config.id);
    const filters: ListFilters = {
      keyHash,
      model: query.model,
      provider: query.provider,
      from: query.from,
      to: query.to,
      after,
      userId: query.user_id,
      status: query.status,
      finishReason: query.finish_reason,
      costAbove: query.cost_gt,
      embeddingModels,
      embeddingsOnly: query.api_type === 'embeddings',
    };
    const { rows } = await this.prisma.pool.query<GenerationRow>(listStatement(principal.workspaceId, filters, limit + 1));
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      data: page.map((row) => this.reader.view(row)),
      next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
    };
  }
}

/** `<created_at ISO>|<id>` in base64url: where the next page starts, opaque to clients. */
function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt)) || !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(createdAt))
    throw GatewayError.badRequest('cursor must be the next_cursor of a previous page');
  return { createdAt, id };
}
