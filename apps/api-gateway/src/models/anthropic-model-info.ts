import type { AnthropicModelInfoView, AnthropicModelListView, ModelView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

/** A caller that speaks Anthropic's API: it sends `anthropic-version`, or its key as `x-api-key`. */
export function wantsAnthropicShape(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined;
}

/** Anthropic's `ModelInfo` from the catalog's entry. */
export function anthropicModelInfo(model: ModelView): AnthropicModelInfoView {
  return {
    type: 'model',
    id: model.id,
    display_name: model.name,
    created_at: new Date(model.created * 1000).toISOString(),
    capabilities: null,
    lifecycle: 'active',
    line: null,
    deprecated_at: null,
    retires_at: null,
    max_input_tokens: model.context_length,
    max_tokens: model.top_provider.max_completion_tokens,
  };
}

/** Anthropic's page size: 20 unless `limit` (1 to 1000) says otherwise. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

/**
 * Anthropic's list (`@anthropic-ai/sdk` `models.list`): a page of `limit` models after
 * `after_id`, or the page before `before_id`, in the catalog's order, with its first and last
 * ids and whether more lie that way.
 */
export function anthropicModelPage(models: readonly ModelView[], query: Record<string, unknown>): AnthropicModelListView {
  for (const [name, value] of Object.entries(query))
    if (Array.isArray(value)) throw GatewayError.badRequest(`${name}: give it once`, { param: name });
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw GatewayError.badRequest(`limit: must be an integer from 1 to ${MAX_LIMIT}`, { param: 'limit' });
  const positionOf = (param: 'after_id' | 'before_id'): number | undefined => {
    if (query[param] === undefined) return undefined;
    const at = models.findIndex((model) => model.id === query[param]);
    if (at < 0) throw GatewayError.badRequest(`${param}: no model ${String(query[param])}`, { param });
    return at;
  };
  const before = positionOf('before_id');
  const after = positionOf('after_id');
  const start = before !== undefined ? Math.max(0, before - limit) : after === undefined ? 0 : after + 1;
  const end = before !== undefined ? before : Math.min(models.length, start + limit);
  const data = models.slice(start, end).map(anthropicModelInfo);
  return {
    data,
    has_more: before !== undefined ? start > 0 : end < models.length,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}
