/**
 * What each simulated OpenAI-compatible host refuses and how it answers, as its public API
 * reference documents it (see docs/providers/openai-compatible-hosts.md). The simulator's own
 * copy: it never imports the gateway's profiles, so a wrong profile fails the tests.
 */
export type HostName =
  | 'groq'
  | 'mistral'
  | 'deepseek'
  | 'xai'
  | 'together'
  | 'fireworks'
  | 'cerebras'
  | 'openrouter'
  | 'perplexity'
  | 'vllm'
  | 'ollama'
  | 'lmstudio'
  | 'llamacpp';

/** How the host's error bodies look. */
export type ErrorShape = 'openai' | 'mistral' | 'vllm' | 'string' | 'numeric-code';

export interface HostRules {
  /** `bearer`: a key is required; `optional`: checked when sent (a server started with --api-key); `none`: ignored. */
  auth: 'bearer' | 'optional' | 'none';
  /** Unknown top-level fields: refused (`400` with Groq's words, `422` extra_forbidden as Mistral) or silently ignored. */
  unknownFields: 'groq' | 'mistral' | 'ignore';
  /** The host's own list of top-level fields, where it is not OpenAI's (Mistral's schema). */
  accepts?: readonly string[];
  /** Fields the host accepts on top of OpenAI's core set (translated or dropped before the OpenAI simulator answers). */
  extras: readonly string[];
  /** Fields of OpenAI's set the host refuses with a 400. */
  refuses: readonly string[];
  /** Fields refused on the models matching. */
  refusesOn?: ReadonlyArray<{ model: RegExp; fields: readonly string[] }>;
  /** The completion cap the host honours; the other name is refused (strict hosts) or ignored. */
  maxTokens: 'max_tokens' | 'max_completion_tokens' | 'both';
  roles: readonly string[];
  messageName: boolean;
  toolCallIds?: RegExp;
  alternating?: boolean;
  responseFormats: readonly string[];
  maxChoices: number;
  /** n above maxChoices is a 400 (Groq: "must be at most 1", llama.cpp: "Only one completion choice is allowed"); else ignored. */
  refusesManyChoices?: boolean;
  /** `tool_choice` naming a function is refused. */
  namedToolChoice: boolean;
  /** Reasoning text in the answer: OpenRouter's `reasoning`, or `reasoning_content` (DeepSeek, vLLM, llama.cpp, xAI's grok-3-mini). */
  reasoningField: 'reasoning' | 'reasoning_content';
  /** Usage in streams without `stream_options` (the OpenAI simulator only sends it when asked). */
  streamUsageAlways: boolean;
  usage?: 'deepseek' | 'xai' | 'perplexity';
  errors: ErrorShape;
  /** Cerebras signals a 429's wait only in its x-ratelimit-reset headers. */
  rateLimitHeadersOnly?: boolean;
  /** DeepSeek's thinking mode: a prior assistant tool-call turn must carry its reasoning_content. */
  reasoningBackOnToolTurns?: RegExp;
}

/** OpenAI's own top-level fields the open-weights hosts do not serve. */
const OPENAI_ONLY = [
  'service_tier',
  'prompt_cache_key',
  'safety_identifier',
  'verbosity',
  'prediction',
  'web_search_options',
  'audio',
  'modalities',
  'store',
  'metadata',
  'prompt_cache_retention',
];
const SAMPLING_EXTRAS = ['top_k', 'min_p', 'repetition_penalty'];
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];
const NO_DEVELOPER = ['system', 'user', 'assistant', 'tool'];

export const HOST_RULES: Readonly<Record<HostName, HostRules>> = {
  groq: {
    auth: 'bearer',
    unknownFields: 'groq',
    extras: ['reasoning_format', 'include_reasoning'],
    refuses: ['logprobs', 'logit_bias', 'top_logprobs', ...OPENAI_ONLY],
    maxTokens: 'both',
    roles: ROLES,
    messageName: false,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 1,
    refusesManyChoices: true,
    namedToolChoice: true,
    reasoningField: 'reasoning',
    streamUsageAlways: false,
    errors: 'openai',
  },
  mistral: {
    auth: 'bearer',
    unknownFields: 'mistral',
    accepts: [
      'model',
      'messages',
      'temperature',
      'top_p',
      'max_tokens',
      'stream',
      'stop',
      'response_format',
      'tools',
      'tool_choice',
      'presence_penalty',
      'frequency_penalty',
      'n',
      'prediction',
      'parallel_tool_calls',
    ],
    extras: ['random_seed', 'safe_prompt', 'prompt_mode'],
    refuses: [],
    maxTokens: 'max_tokens',
    roles: NO_DEVELOPER,
    messageName: true,
    toolCallIds: /^[a-zA-Z0-9]{9}$/,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 8,
    namedToolChoice: true,
    reasoningField: 'reasoning',
    streamUsageAlways: true,
    errors: 'mistral',
  },
  deepseek: {
    auth: 'bearer',
    unknownFields: 'ignore',
    extras: [],
    refuses: [],
    refusesOn: [{ model: /reasoner/, fields: ['logprobs', 'top_logprobs'] }],
    maxTokens: 'max_tokens',
    roles: NO_DEVELOPER,
    messageName: true,
    responseFormats: ['text', 'json_object'],
    maxChoices: 1,
    namedToolChoice: true,
    reasoningField: 'reasoning_content',
    streamUsageAlways: false,
    usage: 'deepseek',
    errors: 'openai',
    reasoningBackOnToolTurns: /reasoner/,
  },
  xai: {
    auth: 'bearer',
    unknownFields: 'ignore',
    extras: ['search_parameters'],
    refuses: [],
    refusesOn: [{ model: /^grok-4(?!.*non-reasoning)/, fields: ['presence_penalty', 'frequency_penalty', 'stop', 'reasoning_effort'] }],
    maxTokens: 'both',
    roles: ROLES,
    messageName: true,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 8,
    namedToolChoice: true,
    reasoningField: 'reasoning_content',
    streamUsageAlways: false,
    usage: 'xai',
    errors: 'openai',
  },
  together: {
    auth: 'bearer',
    unknownFields: 'ignore',
    extras: SAMPLING_EXTRAS,
    refuses: [],
    maxTokens: 'max_tokens',
    roles: ROLES,
    messageName: true,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 8,
    namedToolChoice: true,
    reasoningField: 'reasoning',
    streamUsageAlways: true,
    errors: 'openai',
  },
  fireworks: {
    auth: 'bearer',
    unknownFields: 'ignore',
    extras: SAMPLING_EXTRAS,
    refuses: [],
    maxTokens: 'max_tokens',
    roles: ROLES,
    messageName: true,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 8,
    namedToolChoice: true,
    reasoningField: 'reasoning_content',
    streamUsageAlways: false,
    errors: 'openai',
  },
  cerebras: {
    auth: 'bearer',
    unknownFields: 'ignore',
    extras: [],
    refuses: ['frequency_penalty', 'presence_penalty', 'logit_bias', 'parallel_tool_calls', 'service_tier'],
    maxTokens: 'both',
    roles: NO_DEVELOPER,
    messageName: true,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 1,
    namedToolChoice: false,
    reasoningField: 'reasoning',
    streamUsageAlways: false,
    errors: 'openai',
    rateLimitHeadersOnly: true,
  },
  openrouter: {
    auth: 'bearer',
    unknownFields: 'ignore',
    extras: ['reasoning', 'provider', 'models', 'transforms', 'usage', 'top_k', 'min_p', 'repetition_penalty', 'top_a'],
    refuses: [],
    maxTokens: 'both',
    roles: ROLES,
    messageName: true,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 8,
    namedToolChoice: true,
    reasoningField: 'reasoning',
    streamUsageAlways: true,
    errors: 'numeric-code',
  },
  perplexity: {
    auth: 'bearer',
    unknownFields: 'ignore',
    extras: [
      'search_domain_filter',
      'search_recency_filter',
      'return_images',
      'return_related_questions',
      'search_mode',
      'web_search_options',
    ],
    refuses: ['tools', 'tool_choice', 'n', 'logprobs', 'top_logprobs', 'stream_options'],
    maxTokens: 'max_tokens',
    roles: NO_DEVELOPER,
    messageName: true,
    alternating: true,
    responseFormats: ['text', 'json_schema', 'regex'],
    maxChoices: 1,
    namedToolChoice: false,
    reasoningField: 'reasoning',
    streamUsageAlways: true,
    usage: 'perplexity',
    errors: 'openai',
  },
  vllm: {
    auth: 'optional',
    unknownFields: 'ignore',
    extras: [...SAMPLING_EXTRAS, 'guided_json', 'chat_template_kwargs'],
    refuses: [],
    maxTokens: 'both',
    roles: ROLES,
    messageName: true,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 8,
    namedToolChoice: true,
    reasoningField: 'reasoning_content',
    streamUsageAlways: false,
    errors: 'vllm',
  },
  ollama: {
    auth: 'none',
    unknownFields: 'ignore',
    extras: [],
    refuses: [],
    maxTokens: 'max_tokens',
    roles: ROLES,
    messageName: true,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 1,
    namedToolChoice: true,
    reasoningField: 'reasoning',
    streamUsageAlways: false,
    errors: 'openai',
  },
  lmstudio: {
    auth: 'none',
    unknownFields: 'ignore',
    extras: ['top_k', 'repeat_penalty'],
    refuses: [],
    maxTokens: 'max_tokens',
    roles: ROLES,
    messageName: true,
    responseFormats: ['text', 'json_schema'],
    maxChoices: 1,
    namedToolChoice: true,
    reasoningField: 'reasoning',
    streamUsageAlways: false,
    errors: 'string',
  },
  llamacpp: {
    auth: 'optional',
    unknownFields: 'ignore',
    extras: [...SAMPLING_EXTRAS, 'n_predict', 'cache_prompt'],
    refuses: [],
    maxTokens: 'max_tokens',
    roles: ROLES,
    messageName: true,
    responseFormats: ['text', 'json_object', 'json_schema'],
    maxChoices: 1,
    refusesManyChoices: true,
    namedToolChoice: true,
    reasoningField: 'reasoning_content',
    streamUsageAlways: false,
    errors: 'numeric-code',
  },
};

export function isHostName(name: string): name is HostName {
  return Object.hasOwn(HOST_RULES, name);
}
