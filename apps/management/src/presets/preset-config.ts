/**
 * What of a chat-completions body becomes a preset version (spec §4.6: "only fields that
 * overlap the preset config are persisted"). The list and the reasons for each field left
 * out are in docs/adr (presets-versioning). Fields not named here are ignored, as are
 * `messages` (apart from the system prompt), `stream` and `prompt`.
 */
export const PRESET_CONFIG_FIELDS = [
  // which model(s)
  'model',
  'models',
  'provider',
  // sampling
  'temperature',
  'top_p',
  'top_k',
  'top_a',
  'min_p',
  'frequency_penalty',
  'presence_penalty',
  'repetition_penalty',
  'seed',
  'logit_bias',
  'n',
  // length and stopping
  'max_tokens',
  'max_completion_tokens',
  'stop',
  // output shape
  'response_format',
  'modalities',
  'logprobs',
  'top_logprobs',
  // tools and reasoning
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning',
  'reasoning_effort',
  'stop_server_tools_when',
  // gateway features
  'plugins',
  'service_tier',
  'metadata',
  'cache_control',
  'prompt_cache_options',
  'image_config',
  // the response cache's opt-in, checked by inference when a request uses it
  'cache',
] as const;

const persisted = new Set<string>(PRESET_CONFIG_FIELDS);

/** The body's config fields, in the body's order. `null` means "not set" and is not kept. */
export function extractPresetConfig(body: Record<string, unknown>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (persisted.has(field) && value !== undefined && value !== null) config[field] = value;
  }
  return config;
}

/** The text of a message's content: a string, or the `text` of its text parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('');
}

/**
 * The version's system prompt: the text of the `system` messages, joined by a blank line
 * when there are several; null when there is none or it is empty.
 */
export function extractSystemPrompt(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  const texts = messages
    .filter((message) => message?.role === 'system')
    .map((message) => contentText(message.content))
    .filter((text) => text.length > 0);
  return texts.length > 0 ? texts.join('\n\n') : null;
}
