/**
 * The OpenAI-compatible hosts the catalog can name (`providers[].host`), each as data: what it
 * refuses, what it calls by another name, how it reports usage and errors. The OpenAI adapter
 * applies a profile through the small transforms of host-request.ts and host-response.ts; no
 * host gets an adapter of its own. Each line comes from the host's public API reference
 * (URLs in docs/providers/openai-compatible-hosts.md) and is held to by the provider simulator.
 */
export const OPENAI_HOSTS = [
  'openai',
  'groq',
  'mistral',
  'deepseek',
  'xai',
  'together',
  'fireworks',
  'cerebras',
  'openrouter',
  'perplexity',
  'vllm',
  'ollama',
  'lmstudio',
  'llamacpp',
] as const;
export type OpenAiHost = (typeof OPENAI_HOSTS)[number];

export interface HostProfile {
  /** Where the host lives unless the catalog says otherwise (self-hosted ones: their usual local port). */
  defaultBaseUrl: string;
  /** `bearer`: a key is needed; `optional`: sent when the provider has one (vLLM `--api-key`); `none`: never sent. */
  auth: 'bearer' | 'optional' | 'none';
  /** Top-level fields the host answers 400/422 for (or ignores where a silent ignore would mislead): dropped before the call. */
  refuses: readonly string[];
  /** Fields it refuses only on some models (xAI's reasoning models refuse penalties, stop and reasoning_effort). */
  refusesOn?: ReadonlyArray<{ model: RegExp; fields: readonly string[] }>;
  /** Gateway (OpenAI) field name -> the host's name for it (Mistral's `random_seed`). */
  renames?: Readonly<Record<string, string>>;
  /** The one name under which the host honours a completion cap (`max_tokens` on most hosts). */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Hosts without OpenAI's `developer` role get its messages as `system`. */
  developerRole: boolean;
  /** Hosts that refuse a `name` on messages (Groq) get none. */
  messageNames: boolean;
  /** What `response_format` kinds it takes; others are converted or dropped. */
  responseFormats: ReadonlyArray<'json_object' | 'json_schema'>;
  /** `reasoning` goes out as `reasoning_effort` (OpenAI's spelling), as OpenRouter's `reasoning` object, or not at all. */
  reasoning: 'effort' | 'object' | 'none';
  /** The field a prior assistant turn's reasoning goes back under (DeepSeek's thinking mode requires it on tool-call turns). */
  assistantReasoningField?: 'reasoning_content';
  /** Mistral: tool call ids must be 9 characters of [a-zA-Z0-9]; others are rewritten consistently. */
  toolCallIds?: 'alnum9';
  /** Perplexity: after the system messages, user and assistant must alternate; consecutive turns of one role are merged. */
  alternatingRoles?: boolean;
  /**
   * How a stream's usage is asked for: OpenAI's `stream_options.include_usage`, OpenRouter's
   * `usage: {include: true}`, or not at all (the host always sends it and may refuse `stream_options`).
   */
  streamUsage: 'stream_options' | 'usage-include' | 'always';
  /** How usage departs from OpenAI's (usage in host-response.ts). */
  usage?: 'deepseek' | 'xai' | 'perplexity' | 'groq';
  /** How a tool's `tool_choice` naming a function is refused: sent as `required` instead. */
  namedToolChoice: boolean;
  /** Most hosts take at most one choice. */
  multipleChoices: boolean;
}

const LOCAL = (port: number): string => `http://localhost:${port}/v1`;

/** Fields OpenAI itself takes that the open-weights hosts never serve. */
const OPENAI_ONLY = [
  'service_tier',
  'prompt_cache_key',
  'safety_identifier',
  'verbosity',
  'prediction',
  'web_search_options',
  'audio',
  'modalities',
];

export const HOST_PROFILES: Readonly<Record<OpenAiHost, HostProfile>> = {
  openai: {
    defaultBaseUrl: 'https://api.openai.com/v1',
    auth: 'bearer',
    refuses: [],
    maxTokensField: 'max_completion_tokens',
    developerRole: true,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'effort',
    streamUsage: 'stream_options',
    namedToolChoice: true,
    multipleChoices: true,
  },
  // console.groq.com/docs/openai: logprobs, logit_bias, top_logprobs, messages[].name and n != 1 are 400s.
  groq: {
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    auth: 'bearer',
    refuses: [
      'logprobs',
      'logit_bias',
      'top_logprobs',
      'prediction',
      'web_search_options',
      'audio',
      'modalities',
      'verbosity',
      'safety_identifier',
      'prompt_cache_key',
    ],
    maxTokensField: 'max_completion_tokens',
    developerRole: true,
    messageNames: false,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'effort',
    streamUsage: 'stream_options',
    usage: 'groq',
    namedToolChoice: true,
    multipleChoices: false,
  },
  // docs.mistral.ai/api: extra fields are 422 extra_forbidden; `random_seed`, `max_tokens`; roles system/user/assistant/tool.
  mistral: {
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    auth: 'bearer',
    refuses: ['logprobs', 'top_logprobs', 'logit_bias', 'user', 'reasoning_effort', 'stream_options', ...OPENAI_ONLY],
    renames: { seed: 'random_seed' },
    maxTokensField: 'max_tokens',
    developerRole: false,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'none',
    toolCallIds: 'alnum9',
    streamUsage: 'always',
    namedToolChoice: true,
    multipleChoices: true,
  },
  // api-docs.deepseek.com: json_object only; thinking mode returns reasoning_content and wants it back on tool-call turns.
  deepseek: {
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    auth: 'bearer',
    refuses: ['n', 'seed', ...OPENAI_ONLY],
    refusesOn: [{ model: /reasoner/, fields: ['logprobs', 'top_logprobs'] }],
    maxTokensField: 'max_tokens',
    developerRole: false,
    messageNames: true,
    responseFormats: ['json_object'],
    reasoning: 'none',
    assistantReasoningField: 'reasoning_content',
    streamUsage: 'stream_options',
    usage: 'deepseek',
    namedToolChoice: true,
    multipleChoices: false,
  },
  // docs.x.ai: reasoning models refuse presence/frequency penalties, stop and (grok-4) reasoning_effort;
  // reasoning tokens are counted outside completion_tokens.
  xai: {
    defaultBaseUrl: 'https://api.x.ai/v1',
    auth: 'bearer',
    refuses: ['service_tier', 'prediction', 'audio', 'modalities', 'verbosity', 'safety_identifier', 'prompt_cache_key'],
    refusesOn: [{ model: /^grok-4(?!.*non-reasoning)/, fields: ['presence_penalty', 'frequency_penalty', 'stop', 'reasoning_effort'] }],
    maxTokensField: 'max_completion_tokens',
    developerRole: true,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'effort',
    streamUsage: 'stream_options',
    usage: 'xai',
    namedToolChoice: true,
    multipleChoices: true,
  },
  // docs.together.ai: OpenAI-compatible plus top_k, min_p, repetition_penalty; usage rides on the last chunk.
  together: {
    defaultBaseUrl: 'https://api.together.xyz/v1',
    auth: 'bearer',
    refuses: [...OPENAI_ONLY],
    maxTokensField: 'max_tokens',
    developerRole: true,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'effort',
    streamUsage: 'always',
    namedToolChoice: true,
    multipleChoices: true,
  },
  // docs.fireworks.ai: OpenAI-compatible plus top_k, min_p, repetition_penalty; cached tokens in prompt_tokens_details.
  fireworks: {
    defaultBaseUrl: 'https://api.fireworks.ai/inference/v1',
    auth: 'bearer',
    refuses: [...OPENAI_ONLY],
    maxTokensField: 'max_tokens',
    developerRole: true,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'effort',
    streamUsage: 'stream_options',
    namedToolChoice: true,
    multipleChoices: true,
  },
  // inference-docs.cerebras.ai/resources/openai: frequency/presence penalty, logit_bias, parallel_tool_calls,
  // service_tier are 400s; no developer role.
  cerebras: {
    defaultBaseUrl: 'https://api.cerebras.ai/v1',
    auth: 'bearer',
    refuses: ['frequency_penalty', 'presence_penalty', 'logit_bias', 'parallel_tool_calls', ...OPENAI_ONLY],
    maxTokensField: 'max_completion_tokens',
    developerRole: false,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'effort',
    streamUsage: 'stream_options',
    namedToolChoice: false,
    multipleChoices: false,
  },
  // openrouter.ai/docs/api-reference: takes the `reasoning` object itself; errors carry a numeric code; usage always reported.
  openrouter: {
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    auth: 'bearer',
    refuses: [],
    maxTokensField: 'max_tokens',
    developerRole: true,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'object',
    streamUsage: 'usage-include',
    namedToolChoice: true,
    multipleChoices: true,
  },
  // docs.perplexity.ai: roles must alternate after system; no tools; citations, search_results and per-request search fees.
  perplexity: {
    defaultBaseUrl: 'https://api.perplexity.ai',
    auth: 'bearer',
    refuses: [
      'tools',
      'tool_choice',
      'parallel_tool_calls',
      'logprobs',
      'top_logprobs',
      'logit_bias',
      'n',
      'seed',
      'stream_options',
      'user',
      'service_tier',
      'prompt_cache_key',
      'safety_identifier',
      'verbosity',
      'prediction',
      'audio',
      'modalities',
    ],
    maxTokensField: 'max_tokens',
    developerRole: false,
    messageNames: true,
    responseFormats: ['json_schema'],
    reasoning: 'effort',
    alternatingRoles: true,
    streamUsage: 'always',
    usage: 'perplexity',
    namedToolChoice: false,
    multipleChoices: false,
  },
  // docs.vllm.ai OpenAI-compatible server: sampling extras accepted; `--api-key` optional; reasoning as `reasoning_content`.
  vllm: {
    defaultBaseUrl: LOCAL(8000),
    auth: 'optional',
    refuses: [...OPENAI_ONLY],
    maxTokensField: 'max_completion_tokens',
    developerRole: true,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'effort',
    streamUsage: 'stream_options',
    namedToolChoice: true,
    multipleChoices: true,
  },
  // docs.ollama.com/api/openai-compatibility: unknown fields are ignored silently (so `max_completion_tokens`
  // would not cap); no tool_choice, n, logit_bias.
  ollama: {
    defaultBaseUrl: LOCAL(11434),
    auth: 'none',
    refuses: ['tool_choice', 'n', 'logit_bias', 'logprobs', 'top_logprobs', 'user', 'parallel_tool_calls', ...OPENAI_ONLY],
    maxTokensField: 'max_tokens',
    developerRole: true,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'effort',
    streamUsage: 'stream_options',
    namedToolChoice: false,
    multipleChoices: false,
  },
  // lmstudio.ai/docs/app/api/endpoints/openai: response_format must be json_schema; errors are a bare string.
  lmstudio: {
    defaultBaseUrl: LOCAL(1234),
    auth: 'none',
    refuses: ['n', 'logit_bias', 'user', ...OPENAI_ONLY],
    maxTokensField: 'max_tokens',
    developerRole: true,
    messageNames: true,
    responseFormats: ['json_schema'],
    reasoning: 'none',
    streamUsage: 'stream_options',
    namedToolChoice: false,
    multipleChoices: false,
  },
  // github.com/ggml-org/llama.cpp tools/server README: `--api-key` optional; one choice only; numeric error codes; reasoning_content.
  llamacpp: {
    defaultBaseUrl: LOCAL(8080),
    auth: 'optional',
    refuses: ['n', 'user', 'parallel_tool_calls', ...OPENAI_ONLY],
    maxTokensField: 'max_tokens',
    developerRole: true,
    messageNames: true,
    responseFormats: ['json_object', 'json_schema'],
    reasoning: 'none',
    streamUsage: 'stream_options',
    namedToolChoice: true,
    multipleChoices: false,
  },
};

/** The profile of a catalog provider (unset `host`: OpenAI's own rules). */
export function hostProfile(host: string | undefined): HostProfile {
  return HOST_PROFILES[(host ?? 'openai') as OpenAiHost] ?? HOST_PROFILES.openai;
}

/** The fields this host refuses for this model. */
export function refusedFields(profile: HostProfile, upstreamModel: string): Set<string> {
  const fields = new Set(profile.refuses);
  for (const rule of profile.refusesOn ?? []) if (rule.model.test(upstreamModel)) for (const field of rule.fields) fields.add(field);
  if (!profile.multipleChoices) fields.add('n');
  return fields;
}
