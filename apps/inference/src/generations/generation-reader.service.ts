import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GenerationView, Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { CatalogService } from '../catalog/catalog.service.js';
import { servesEmbeddings } from '../catalog/model-kind.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { type GenerationRow, toGenerationView } from './generation-view.js';

/** The columns of a generation's view; money as text, never a float in between. */
export const GENERATION_COLUMNS = `id, workspace_id, key_hash, model, provider, upstream_model, status, prompt_tokens, completion_tokens,
  cached_tokens, reasoning_tokens, cost::text AS cost, upstream_cost::text AS upstream_cost, is_byok, latency_ms,
  session_id, endpoints_tried, usage_details, created_at, request_id, streamed, finish_reason, native_finish_reason,
  upstream_id, generation_time_ms, cancelled, service_tier, price_version, cache_discount::text AS cache_discount,
  response_cache_source_id, preset_id, router, num_media_prompt, num_input_audio_prompt, moderation_latency_ms,
  num_search_results, num_fetches, web_search_engine, http_referer, user_agent, origin, attempt_statuses, attempt_latencies_ms,
  external_user`;

/**
 * A lookup by primary key, prepared once per connection. An id of this gateway names when it was
 * minted, which bounds the day partitions to probe (its row is created at the end of the call).
 */
const SELECT_GENERATION = `SELECT ${GENERATION_COLUMNS} FROM generations
  WHERE id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2) AND ($3::timestamptz IS NULL OR created_at < $3)`;

/** How long a read waits for the row of a generation that just ended (the consumer writes it moments after the answer). */
export const GENERATION_ROW_WAIT_MS = 1_000;
const POLL_MS = 50;
/** Ids (`gen-<ms in base 36>-...`) minted this long ago or less may still be on their way to the table. */
const RECENT_ID_MS = 15 * 60_000;
// A provider-run batch line's id (`gen-batch-<hash>`) carries no time: `batch` is no base-36 time.
const ID_TIME = /^gen-(?!batch-)([0-9a-z]{1,11})-/;

/**
 * `inference.generations.get`: one row of the caller's workspace. The usage event is stored
 * before the answer leaves, the row a consumer batch later: a recent id not found yet is looked
 * up again for up to a second before the 404. An intern's key reads only its own generations.
 */
@Injectable()
export class GenerationReader {
  constructor(
    private readonly prisma: PrismaService,
    private readonly catalog: CatalogService,
  ) {}

  async get(principal: Principal, id: string): Promise<GenerationView> {
    const row = await this.findRow(id);
    const visible =
      row !== undefined &&
      row.workspace_id === principal.workspaceId &&
      (principal.keyKind !== 'intern' || row.key_hash === principal.keyHash);
    if (!visible) throw notFound();
    return this.view(row);
  }

  /** The row as the SDK's generation, its API type from the catalog's kind of the model. */
  view(row: GenerationRow): GenerationView {
    const model = this.catalog.find(row.model);
    return toGenerationView(row, model ? (servesEmbeddings(model) ? 'embeddings' : 'completions') : null);
  }

  private async findRow(id: string): Promise<GenerationRow | undefined> {
    const deadline = mayBeInFlight(id, Date.now()) ? Date.now() + GENERATION_ROW_WAIT_MS : 0;
    for (;;) {
      const { rows } = await this.prisma.pool.query<GenerationRow>({
        name: 'inference_select_generation_v2',
        text: SELECT_GENERATION,
        values: [id, ...createdBetween(id)],
      });
      if (rows[0] || Date.now() + POLL_MS > deadline) return rows[0];
      await sleep(POLL_MS);
    }
  }
}

/** Generations end within this long of their id's minting (batch lines and long streams included). */
const LONGEST_GENERATION_MS = 2 * 86_400_000;
/** Replicas' clocks may disagree by this much. */
const CLOCK_SKEW_MS = 60_000;

/** The creation-time window of an id of this gateway's shape; nulls (every partition) for any other id. */
export function createdBetween(id: string): [string | null, string | null] {
  const match = ID_TIME.exec(id);
  const minted = match ? parseInt(match[1]!, 36) : Number.NaN;
  if (!Number.isFinite(minted) || minted > 8.64e15 - LONGEST_GENERATION_MS) return [null, null];
  return [new Date(Math.max(0, minted - CLOCK_SKEW_MS)).toISOString(), new Date(minted + LONGEST_GENERATION_MS).toISOString()];
}

/** True for an id of this gateway's shape minted recently: its row may not be written yet. */
export function mayBeInFlight(id: string, now: number): boolean {
  const match = ID_TIME.exec(id);
  if (!match) return false;
  const minted = parseInt(match[1]!, 36);
  return minted <= now + 1_000 && now - minted <= RECENT_ID_MS;
}

function notFound(): GatewayError {
  return new GatewayError(404, 'No generation with that id is visible to this API key', {
    metadata: { reason: 'not_found', retryable: false },
  });
}
