import type { UpstreamErrorDetail } from '../../../upstream/upstream-client.js';
import type { NormalizedUsage } from '../../provider-adapter.js';
import { normalizeOpenAiUsage, type OpenAiUsage } from '../openai-response.js';
import type { HostProfile } from './openai-hosts.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

/** A host's usage counts, OpenAI's way: where each host puts cached, reasoning and search counts. */
export function hostUsage(profile: HostProfile, reported: OpenAiUsage | null | undefined): NormalizedUsage | undefined {
  const usage = normalizeOpenAiUsage(reported);
  if (!usage || !reported) return usage;
  const raw = reported as OpenAiUsage & Json;
  // DeepSeek reports its disk cache as prompt_cache_hit_tokens (of prompt_tokens).
  if (profile.usage === 'deepseek' && usage.cachedTokens === 0) usage.cachedTokens = count(raw.prompt_cache_hit_tokens) ?? 0;
  if (profile.usage === 'perplexity') {
    usage.reasoningTokens = count(raw.reasoning_tokens) ?? usage.reasoningTokens;
    const searches = count(raw.num_search_queries);
    if (searches !== undefined)
      usage.serverToolUse = { toolCallsExecuted: searches, toolCallsRequested: searches, webSearchRequests: searches };
  }
  // xAI counts reasoning apart from completion_tokens (total = prompt + completion + reasoning): priced as output, it joins them.
  const total = count(raw.total_tokens);
  if (usage.reasoningTokens > 0 && total === usage.promptTokens + usage.completionTokens + usage.reasoningTokens)
    usage.completionTokens += usage.reasoningTokens;
  return usage;
}

/** Groq sent usage under `x_groq` on a stream's last chunk before it took `stream_options`; both are read. */
export function chunkUsage(chunk: Json): (OpenAiUsage & Json) | undefined {
  if (isObject(chunk.usage)) return chunk.usage as OpenAiUsage & Json;
  if (isObject(chunk.x_groq) && isObject(chunk.x_groq.usage)) return chunk.x_groq.usage as OpenAiUsage & Json;
  return undefined;
}

/**
 * Perplexity's `citations` (URLs) and `search_results` (title, url, date) sit beside the
 * choices; they become the answer's `url_citation` annotations, as OpenAI's search models give them.
 */
export function citationAnnotations(response: Json): Json[] {
  const results = Array.isArray(response.search_results) ? response.search_results.filter(isObject) : [];
  const urls = Array.isArray(response.citations) ? response.citations.filter((url): url is string => typeof url === 'string') : [];
  const titles = new Map(results.map((result) => [String(result.url), typeof result.title === 'string' ? result.title : '']));
  const all = urls.length > 0 ? urls : results.map((result) => String(result.url));
  return all.map((url) => ({ type: 'url_citation', url_citation: { url, title: titles.get(url) ?? '', start_index: 0, end_index: 0 } }));
}

/** Error types of hosts that send no OpenAI code but name the case (llama.cpp's context overflow). */
const HOST_ERROR_TYPES: Record<string, string> = {
  exceed_context_size_error: 'context_length_exceeded',
};

/**
 * The error bodies of OpenAI-compatible hosts: OpenAI's `{error: {message, code}}` (a numeric
 * code from OpenRouter and llama.cpp), a bare string `{error: "..."}` (LM Studio, Ollama's own
 * API), `{object: "error", message, type}` at the top (vLLM, Mistral, whose message may be
 * FastAPI's `{detail: [...]}`), or FastAPI's `{detail: [...]}` alone.
 */
export function compatErrorDetail(body: unknown): UpstreamErrorDetail {
  if (!isObject(body)) return {};
  const error = body.error;
  if (typeof error === 'string') return { message: error };
  const source = isObject(error) ? error : body;
  const message = describe(source.message) ?? describe(source.detail) ?? describe(body.detail);
  const code = typeof source.code === 'string' ? source.code : undefined;
  const type = typeof source.type === 'string' ? HOST_ERROR_TYPES[source.type] : undefined;
  return { message, code: code ?? type };
}

function describe(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const lines = value.filter(isObject).map((entry) => {
      const where = Array.isArray(entry.loc) ? entry.loc.join('.') : undefined;
      return [where, typeof entry.msg === 'string' ? entry.msg : undefined].filter(Boolean).join(': ');
    });
    return lines.length > 0 ? lines.join('; ') : undefined;
  }
  if (isObject(value)) return describe(value.detail) ?? describe(value.message) ?? JSON.stringify(value);
  return undefined;
}
