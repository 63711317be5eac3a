import type { ServiceMetadataView } from './chat-completion.view.js';

/**
 * The message-format result (spec §2.1.1 shape 3): Anthropic's Messages API answer as
 * `POST /v1/messages` returns it, whatever the upstream's format.
 */
export interface MessageView {
  id: string;
  type: 'message';
  role: 'assistant';
  /** Content blocks: text (with citations), thinking, redacted_thinking, tool_use, server tool blocks, ... */
  content: Array<Record<string, unknown>>;
  model: string;
  stop_reason: string | null;
  stop_sequence: string | null;
  stop_details: Record<string, unknown> | null;
  container: Record<string, unknown> | null;
  input_transformations: unknown[] | null;
  usage: MessageUsageView;
  /** The provider that answered (the gateway's addition, as on chat completions). */
  provider?: string;
  service_metadata?: ServiceMetadataView;
  /** The same, under the name `X-OpenRouter-Metadata` asks for (what `@openrouter/sdk` parses). */
  openrouter_metadata?: ServiceMetadataView;
  /**
   * What the answering endpoint could not take and was left out because the answer stays
   * correct without it (`context_management` on an OpenAI-format model, ...); the gateway
   * repeats it in the `x-gateway-warning` header.
   */
  gateway_warnings?: string[];
}

/** `POST /v1/messages/count_tokens`'s answer, as Anthropic's. */
export interface MessageTokenCountBody {
  input_tokens: number;
}

/** Inference's count: the answer, plus who counted (the gateway sends it as a header). */
export interface MessageTokenCountView extends MessageTokenCountBody {
  /** `anthropic` (the provider's own count endpoint) or the tokenizer that counted, e.g. `gpt-tokenizer:o200k_base`. */
  counted_by: string;
}

/** Anthropic's usage, plus the gateway's cost fields as on chat completions. */
export interface MessageUsageView {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation?: Record<string, unknown> | null;
  server_tool_use?: Record<string, unknown> | null;
  service_tier?: string | null;
  /** The speed mode the provider served (Anthropic-format endpoints). */
  speed?: string | null;
  /** The region the provider ran the request in (Anthropic-format endpoints). */
  inference_geo?: string | null;
  cost: number;
  is_byok: boolean;
  cost_details: Record<string, number | null>;
}
