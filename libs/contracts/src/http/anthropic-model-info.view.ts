import type { Integer } from './integer.js';

/** Anthropic's `ModelInfo` (`@anthropic-ai/sdk` `models.retrieve`), answered to callers that speak Anthropic's API. */
export interface AnthropicModelInfoView {
  type: 'model';
  id: string;
  display_name: string;
  /** RFC 3339. */
  created_at: string;
  /** Anthropic's capability list describes its own models' features; the gateway does not claim them. */
  capabilities: null;
  lifecycle: 'active';
  line: null;
  deprecated_at: null;
  retires_at: null;
  max_input_tokens: Integer | null;
  max_tokens: Integer | null;
}

/** Anthropic's model list page (`@anthropic-ai/sdk` `models.list`). */
export interface AnthropicModelListView {
  data: AnthropicModelInfoView[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}
