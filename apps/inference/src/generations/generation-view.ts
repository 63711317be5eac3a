import type { GenerationView, ProviderResponseView } from '@gw/contracts';

/** A `generations` row as the read statement returns it (money as text, never a float in between). */
export interface GenerationRow {
  id: string;
  workspace_id: string;
  key_hash: string;
  model: string;
  provider: string;
  upstream_model: string;
  status: 'succeeded' | 'failed';
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  cost: string;
  upstream_cost: string;
  is_byok: boolean;
  latency_ms: number;
  session_id: string | null;
  request_id: string | null;
  streamed: boolean | null;
  price_version: number | null;
  finish_reason: string | null;
  native_finish_reason: string | null;
  upstream_id: string | null;
  generation_time_ms: number | null;
  cancelled: boolean | null;
  service_tier: string | null;
  endpoints_tried: string[];
  usage_details: Record<string, number> | null;
  created_at: Date;
  cache_discount: string | null;
  response_cache_source_id: string | null;
  preset_id: string | null;
  router: string | null;
  num_media_prompt: number | null;
  num_input_audio_prompt: number | null;
  moderation_latency_ms: number | null;
  num_search_results: number | null;
  num_fetches: number | null;
  web_search_engine: string | null;
  http_referer: string | null;
  user_agent: string | null;
  origin: string | null;
  attempt_statuses: number[] | null;
  attempt_latencies_ms: number[] | null;
  external_user: string | null;
}

/**
 * The row in `@openrouter/sdk`'s generation shape. What the row does not record is null (the
 * SDK types allow it), never a guess; `api_type` comes from the catalog's kind of the model.
 * Rows written before a column existed read null there.
 */
export function toGenerationView(row: GenerationRow, apiType: GenerationView['api_type']): GenerationView {
  const cost = Number(row.cost);
  return {
    id: row.id,
    model: row.model,
    created_at: row.created_at.toISOString(),
    workspace_id: row.workspace_id,
    total_cost: cost,
    usage: cost,
    upstream_inference_cost: Number(row.upstream_cost),
    cache_discount: row.cache_discount === null ? null : Number(row.cache_discount),
    is_byok: row.is_byok,
    provider_name: row.provider,
    provider_responses: providerResponses(row),
    tokens_prompt: row.prompt_tokens,
    tokens_completion: row.completion_tokens,
    native_tokens_prompt: row.prompt_tokens,
    native_tokens_completion: row.completion_tokens,
    native_tokens_reasoning: row.reasoning_tokens,
    native_tokens_cached: row.cached_tokens,
    native_tokens_completion_images: row.usage_details?.completion_image_tokens ?? null,
    num_media_prompt: row.num_media_prompt,
    num_media_completion: null,
    num_input_audio_prompt: row.num_input_audio_prompt,
    num_search_results: row.num_search_results,
    num_fetches: row.num_fetches,
    web_search_engine: row.web_search_engine,
    latency: row.latency_ms,
    generation_time: row.generation_time_ms,
    moderation_latency: row.moderation_latency_ms,
    streamed: row.streamed,
    cancelled: row.cancelled,
    finish_reason: row.finish_reason,
    native_finish_reason: row.native_finish_reason,
    upstream_id: row.upstream_id,
    preset_id: row.preset_id,
    router: row.router,
    service_tier: row.service_tier,
    api_type: apiType,
    session_id: row.session_id,
    request_id: row.request_id,
    response_cache_source_id: row.response_cache_source_id,
    app_id: null,
    external_user: row.external_user,
    http_referer: row.http_referer,
    user_agent: row.user_agent,
    // The SDK types origin as a string: '' when the client sent no Origin header.
    origin: row.origin ?? '',
    data_region: 'global',
    price_version: row.price_version,
  };
}

/**
 * One entry per provider call, from `endpoints_tried` (`<provider id>/<upstream model>`, the
 * answering one last), with each call's HTTP status and latency where the row records them (null
 * status: the call got none, a connect error or a timeout). Rows written before the statuses were
 * kept know only the last call's: 200 when the generation succeeded.
 */
function providerResponses(row: GenerationRow): ProviderResponseView[] {
  const tried = row.endpoints_tried.length > 0 ? row.endpoints_tried : [`${row.provider}/${row.upstream_model}`];
  const statuses = row.attempt_statuses?.length === tried.length ? row.attempt_statuses : null;
  const latencies = row.attempt_latencies_ms?.length === tried.length ? row.attempt_latencies_ms : null;
  return tried.map((endpoint, index) => {
    const slash = endpoint.indexOf('/');
    const last = index === tried.length - 1;
    const recorded = statuses?.[index];
    return {
      provider_name: slash < 0 ? endpoint : endpoint.slice(0, slash),
      model_permaslug: slash < 0 ? '' : endpoint.slice(slash + 1),
      status: recorded !== undefined ? recorded || null : last && row.status === 'succeeded' ? 200 : null,
      ...(latencies ? { latency: latencies[index]! } : {}),
      ...(last ? { is_byok: row.is_byok } : {}),
    };
  });
}
