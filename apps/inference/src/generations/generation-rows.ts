import type { UsageRecordedEvent } from '@gw/contracts';
import { Prisma } from '../generated/prisma/client.js';

/** One INSERT of many generation rows; a generation already recorded (a redelivery) is skipped. */
export function insertGenerations(events: UsageRecordedEvent[]): Prisma.Sql {
  const rows = events.map(
    (event) => Prisma.sql`(${event.generationId}, ${event.workspaceId}::uuid, ${event.keyHash}, ${event.userId}::uuid, ${event.model},
      ${event.provider}, ${event.upstreamModel}, ${event.status}::"GenerationStatus", ${event.promptTokens}, ${event.completionTokens},
      ${event.cachedTokens}, ${event.reasoningTokens}, ${event.tokensEstimated}, ${event.cost}::numeric, ${event.upstreamCost}::numeric,
      ${event.isByok}, ${event.latencyMs}, ${event.sessionId ?? null}, ${event.batchId ?? null}, ${event.attempts ?? 1},
      ${event.endpointsTried ?? []}::text[], ${event.usageDetails ? JSON.stringify(event.usageDetails) : null}::jsonb, ${new Date(event.createdAt)})`,
  );
  return Prisma.sql`
    INSERT INTO generations (id, workspace_id, key_hash, user_id, model, provider, upstream_model, status, prompt_tokens,
      completion_tokens, cached_tokens, reasoning_tokens, tokens_estimated, cost, upstream_cost, is_byok, latency_ms,
      session_id, batch_id, attempts, endpoints_tried, usage_details, created_at)
    VALUES ${Prisma.join(rows)}
    ON CONFLICT (id) DO NOTHING`;
}
