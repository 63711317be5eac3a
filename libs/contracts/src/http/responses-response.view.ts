import type { Integer } from './integer.js';
import type { ServerToolUseView, ServiceMetadataView } from './chat-completion.view.js';

/** An `output_text` part of a message item (annotations as OpenAI's: url_citation, file_citation, ...). */
export interface ResponsesOutputTextView {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export interface ResponsesRefusalView {
  type: 'refusal';
  refusal: string;
}

export interface ResponsesMessageItemView {
  type: 'message';
  id: string;
  role: 'assistant';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: Array<ResponsesOutputTextView | ResponsesRefusalView>;
}

export interface ResponsesFunctionCallItemView {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  /** The namespace tool the function belongs to, when it came in one. */
  namespace?: string;
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

/** A call of a client's `custom` tool: its free-text `input`. */
export interface ResponsesCustomToolCallItemView {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  namespace?: string;
  input: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

/** A call of the client's `local_shell` tool: the command for the client to run. */
export interface ResponsesLocalShellCallItemView {
  type: 'local_shell_call';
  id: string;
  call_id: string;
  action: { type: 'exec'; command: string[]; env: Record<string, string>; working_directory?: string; timeout_ms?: Integer };
  status: 'in_progress' | 'completed' | 'incomplete';
}

export interface ResponsesReasoningItemView {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  /** Only with `include: ["reasoning.encrypted_content"]`. */
  encrypted_content?: string;
}

/** An image the model generated (`modalities: ["image"]`): `result` is the base64 image. */
export interface ResponsesImageItemView {
  type: 'image_generation_call';
  id: string;
  status: 'completed';
  result: string;
}

/**
 * A server tool the gateway ran for the model (`service:web_search` / `service:web_fetch`),
 * in OpenAI's web_search_call shape.
 */
export interface ResponsesWebSearchCallItemView {
  type: 'web_search_call';
  id: string;
  status: 'completed' | 'failed';
  action: { type: 'search'; query: string; sources?: Array<{ type: 'url'; url: string }> } | { type: 'open_page'; url: string };
}

export type ResponsesOutputItemView =
  | ResponsesMessageItemView
  | ResponsesFunctionCallItemView
  | ResponsesCustomToolCallItemView
  | ResponsesLocalShellCallItemView
  | ResponsesReasoningItemView
  | ResponsesImageItemView
  | ResponsesWebSearchCallItemView;

/** Spec §2.6 usage. */
export interface ResponsesUsageView {
  input_tokens: Integer;
  input_tokens_details: { cached_tokens: Integer };
  output_tokens: Integer;
  output_tokens_details: { reasoning_tokens: Integer };
  total_tokens: Integer;
  cost: number;
  is_byok: boolean;
  cost_details: { upstream_inference_cost: number | null; upstream_inference_input_cost: number; upstream_inference_output_cost: number };
  /** Spec §2.1's counts, when the request offered server tools. */
  server_tool_use?: ServerToolUseView;
  server_tool_use_details?: ServerToolUseView;
}

/**
 * Spec §2.6: the Responses-API response object, with the fields `openai` and
 * `@openrouter/sdk` (`OpenResponsesResult`) require, and the echoed configuration.
 */
export interface ResponsesResponseView {
  id: string;
  object: 'response';
  created_at: Integer;
  completed_at: Integer | null;
  model: string;
  status: 'completed' | 'incomplete' | 'in_progress' | 'failed' | 'cancelled' | 'queued';
  error: { code: string; message: string; metadata?: Record<string, unknown> } | null;
  incomplete_details: { reason: string } | null;
  output: ResponsesOutputItemView[];
  output_text: string;
  usage: ResponsesUsageView | null;
  /** Spec §7.3, on failure. */
  error_type?: string;
  service_metadata?: ServiceMetadataView;
  /** The same, under the name `X-OpenRouter-Metadata` asks for (what `@openrouter/sdk` parses). */
  openrouter_metadata?: ServiceMetadataView;
  /** The alignment plugin's record (spec §2.6, beta). */
  alignment?: { calls: Array<{ call: Integer; outcome: string; rules: Array<{ broken: boolean; probability: number }> }> };
  /** The echoed configuration: instructions, tools, tool_choice, temperature, top_p, reasoning, text, truncation, ... */
  [echoed: string]: unknown;
}
