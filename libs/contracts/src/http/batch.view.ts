/**
 * Public shapes of the batch API (spec §2.1, §2.1.1, §2.1.2; OpenAI's batch list envelope).
 * Status values and the terminal set: spec §3.1.
 */
export const BATCH_STATUSES = [
  'validating',
  'in_progress',
  'finalizing',
  'completed',
  'failed',
  'expired',
  'cancelling',
  'cancelled',
] as const;
export type BatchStatusName = (typeof BATCH_STATUSES)[number];
export const TERMINAL_BATCH_STATUSES: readonly BatchStatusName[] = ['completed', 'failed', 'expired', 'cancelled'];

/** The only completion window (spec §8). */
export const BATCH_COMPLETION_WINDOW = '24h';

export interface BatchResultError {
  type: string;
  message: string;
  param: string | null;
  error_type?: string;
}

/** Spec §2.1.1: one line's outcome. */
export interface BatchResultItem {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string | null; body: unknown } | null;
  error: BatchResultError | null;
}

/** Spec §2.1.2, summed over the lines. */
export interface BatchUsageView {
  cache_creation: unknown;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: {
    audio_tokens: number | null;
    cache_write_tokens: number | null;
    cached_tokens: number | null;
    file_tokens?: number | null;
    video_tokens?: number | null;
  };
  completion_tokens_details: { audio_tokens: number | null; image_tokens: number | null; reasoning_tokens: number | null };
  cost: number | null;
  cost_details: Record<string, number | null> | null;
  is_byok: boolean;
  iterations: unknown[] | null;
  server_tool_use: { tool_calls_executed: number | null; tool_calls_requested: number | null; web_search_requests: number | null } | null;
}

/** Spec §2.1, and the file fields of OpenAI's batch object. */
export interface BatchView {
  id: string;
  object: 'batch';
  endpoint: string;
  model: string;
  completion_window: string;
  status: BatchStatusName;
  created_at: number;
  finalized_at: number | null;
  request_counts: { total: number; completed: number; failed: number };
  error: { message: string } | null;
  results: BatchResultItem[] | null;
  usage: BatchUsageView;
  /**
   * OpenAI's batch flow beside spec §2.1: the uploaded input file (null for inline requests),
   * and once ended the output and error files (each null when it would hold no line).
   */
  input_file_id: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  expires_at: number;
}

export interface BatchListView {
  object: 'list';
  data: BatchView[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export interface BatchDeletedView {
  id: string;
  object: 'batch';
  deletion: { service: 'deleted'; upstream?: { provider: string; status: string } };
}
