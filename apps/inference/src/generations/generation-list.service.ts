import { Injectable } from '@nestjs/common';
import { GENERATION_PAGE_DEFAULT, type GenerationListView, type ListGenerationsQueryDto, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { CatalogService } from '../catalog/catalog.service.js';
import { servesEmbeddings } from '../catalog/model-kind.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { GENERATION_COLUMNS, GenerationReader } from './generation-reader.service.js';
import type { GenerationRow } from './generation-view.js';

/**
 * Newest first by (created_at, id), a keyset cursor, on the `(workspace_id, created_at)` index:
 * the filters are checked on the rows that range scan reads, so no index of their own. One
 * statement whatever the filters (an absent one is NULL), prepared once per connection. The
 * API type is the catalog's kind of the model, so it filters by the catalog's embeddings models
 * (static data the rows do not copy).
 */
const LIST_GENERATIONS = `
  SELECT ${GENERATION_COLUMNS} FROM generations
  WHERE workspace_id = $1
    AND ($2::text IS NULL OR key_hash = $2)
    AND ($3::text IS NULL OR model = $3)
    AND ($4::text IS NULL OR provider = $4)
    AND ($5::timestamptz IS NULL OR created_at >= $5)
    AND ($6::timestamptz IS NULL OR created_at < $6)
    AND ($7::timestamptz IS NULL OR (created_at, id) < ($7, $8::text))
    AND ($10::uuid IS NULL OR user_id = $10)
    AND ($11::text IS NULL OR status = $11::"GenerationStatus")
    AND ($12::text IS NULL OR finish_reason = $12)
    AND ($13::numeric IS NULL OR cost > $13)
    AND ($14::text[] IS NULL OR (model = ANY($14)) = $15::bool)
  ORDER BY created_at DESC, id DESC
  LIMIT $9`;

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
    const { rows } = await this.prisma.pool.query<GenerationRow>({
      name: 'inference_list_generations_v2',
      text: LIST_GENERATIONS,
      values: [
        principal.workspaceId,
        keyHash,
        query.model ?? null,
        query.provider ?? null,
        query.from ?? null,
        query.to ?? null,
        after?.createdAt ?? null,
        after?.id ?? null,
        limit + 1,
        query.user_id ?? null,
        query.status ?? null,
        query.finish_reason ?? null,
        query.cost_gt ?? null,
        embeddingModels,
        query.api_type === 'embeddings',
      ],
    });
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
