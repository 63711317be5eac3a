import type { AnthropicModelInfoView, ModelView } from '@gw/contracts';

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
