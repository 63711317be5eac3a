import type { Integer } from './integer.js';
/** The chat-completion result of spec §2.1, as the gateway returns it. */
export interface ChatCompletionView {
  id: string;
  object: 'chat.completion';
  created: Integer;
  model: string;
  provider: string | null;
  system_fingerprint: string | null;
  service_tier: string | null;
  choices: ChatChoiceView[];
  usage: ChatUsageView;
  /** Routing metadata (spec §2.6), only when the caller opted in (§4.5). */
  service_metadata?: ServiceMetadataView;
  /** The same, under the name `X-OpenRouter-Metadata` asks for (what `@openrouter/sdk` parses). */
  openrouter_metadata?: ServiceMetadataView;
  /** The alignment plugin's record (spec §2.6 `alignment`, beta), when the request turned it on. */
  alignment?: AlignmentView;
}

/** Spec §2.6 `alignment`: one entry per judged answer. */
export interface AlignmentView {
  calls: Array<{ call: Integer; outcome: string; rules: Array<{ broken: boolean; probability: number }> }>;
}

/** Spec §2.6 routing metadata. */
export interface ServiceMetadataView {
  attempt: Integer;
  endpoints: { available: Array<{ model: string; provider: string; selected: boolean }>; total: Integer };
  generation_time: Integer;
  is_byok: boolean;
  region: string;
  requested: string;
  strategy: string;
  summary: string;
  /** Request parameters the answering endpoint does not support, dropped from its call (catalog supportedParameters). */
  dropped_parameters?: string[];
}

export interface ChatChoiceView {
  index: Integer;
  message: ChatResponseMessageView;
  finish_reason: string | null;
  native_finish_reason: string | null;
  logprobs: { content: LogprobEntryView[] | null; refusal: LogprobEntryView[] | null } | null;
}

/** Spec §2.1: one token's log probability; top_logprobs entries have the same shape without nesting. */
export interface LogprobEntryView extends LogprobTopEntryView {
  top_logprobs?: LogprobTopEntryView[];
}

/** A `top_logprobs` entry: the entry's shape without nesting (named so the OpenAPI generator can follow it). */
export interface LogprobTopEntryView {
  token: string;
  bytes: number[] | null;
  logprob: number;
}

/** Spec §2.1's three annotation kinds, in OpenAI's / OpenRouter's nested shape. */
export type AnnotationView =
  | { type: 'url_citation'; url_citation: { url: string; title: string; start_index: Integer; end_index: Integer; content?: string } }
  | {
      type: 'web_search_citation';
      web_search_citation: { url: string; title: string | null; cited_text?: string; encrypted_index?: string };
    }
  | { type: 'file'; file: { hash: string; content: unknown; name?: string } };

export interface ChatToolCallView {
  index: Integer;
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatResponseMessageView {
  role: 'assistant';
  content: string | null;
  refusal: string | null;
  reasoning?: string | null;
  reasoning_details?: Array<Record<string, unknown>> | null;
  tool_calls?: ChatToolCallView[];
  annotations?: AnnotationView[];
  images?: Array<{ type: 'image_url'; image_url: { url: string } }>;
  /** OpenAI's audio output (`modalities: ["audio"]`): id, data, expires_at, transcript. */
  audio?: Record<string, unknown> | null;
}

export interface ChatUsageView {
  prompt_tokens: Integer;
  completion_tokens: Integer;
  total_tokens: Integer;
  prompt_tokens_details?: {
    cached_tokens: Integer | null;
    cache_write_tokens?: Integer | null;
    audio_tokens?: Integer | null;
    file_tokens?: Integer | null;
    video_tokens?: Integer | null;
  };
  completion_tokens_details?: { reasoning_tokens: Integer | null; audio_tokens?: Integer | null; image_tokens?: Integer | null };
  /** Spec §2.1: server tools the provider ran; both objects carry the same counts. */
  server_tool_use?: ServerToolUseView;
  server_tool_use_details?: ServerToolUseView;
  /** Credits charged, a decimal rendered as a JSON number. */
  cost: number;
  is_byok: boolean;
  /**
   * Both spellings of the split: `prompt`/`completions` as OpenRouter's chat clients read it,
   * `input`/`output` as spec §2.6 names it for responses.
   */
  cost_details: {
    upstream_inference_cost: number | null;
    upstream_inference_prompt_cost: number;
    upstream_inference_completions_cost: number;
    upstream_inference_input_cost: number;
    upstream_inference_output_cost: number;
  };
}

export interface ServerToolUseView {
  tool_calls_executed: Integer | null;
  tool_calls_requested: Integer | null;
  web_search_requests: Integer | null;
}

/**
 * One model in GET /v1/models: OpenAI's list fields (`object`, `owned_by`) plus the fields
 * OpenRouter's clients require (`canonical_slug`, `architecture`, `top_provider`, ...).
 */
export interface ModelView {
  id: string;
  canonical_slug: string;
  object: 'model';
  created: Integer;
  owned_by: string;
  name: string;
  context_length: Integer;
  architecture: { modality: string; input_modalities: string[]; output_modalities: string[] };
  pricing: ModelPricingView;
  top_provider: { context_length: Integer; max_completion_tokens: Integer | null; is_moderated: boolean };
  per_request_limits: null;
  default_parameters: null;
  supported_parameters: string[];
  supported_voices: null;
  links: { details: string };
  /** A deprecated model's last day (`YYYY-MM-DD`, OpenRouter's field), or null when deprecated without one; absent otherwise. */
  expiration_date?: string | null;
}

/**
 * Prices per token (per request / per search for those two), decimals as strings, in
 * OpenRouter's names; the optional ones only where the model's endpoint has such a price.
 */
export interface ModelPricingView {
  prompt: string;
  completion: string;
  input_cache_read: string;
  input_cache_write?: string;
  internal_reasoning?: string;
  audio?: string;
  request?: string;
  web_search?: string;
  /**
   * Time-of-day prices (UTC): a call that starts inside a window pays its token prices instead
   * (the first window that holds it). `days` the window starts on (absent: every day); `start`
   * inclusive, `end` exclusive, `HH:MM`; an `end` not after `start` runs past midnight.
   */
  time_windows?: ModelPriceWindowView[];
}

export interface ModelPriceWindowView {
  name: string;
  days?: string[];
  start: string;
  end: string;
  prompt: string;
  completion: string;
  input_cache_read: string;
  input_cache_write?: string;
}

export interface ModelListView {
  object: 'list';
  data: ModelView[];
  total_count: Integer;
  links: { next: string | null };
}
