/**
 * Gateway-level fields that steer routing or billing here and mean nothing (or something
 * else) to a provider, so they are not forwarded.
 */
const GATEWAY_ONLY_FIELDS = new Set(['models', 'provider', 'route', 'preset', 'plugins', 'session_id', 'debug', 'transforms', 'usage', 'stream', 'stream_options']);

/** The body sent to an OpenAI-compatible endpoint: the client's body, re-targeted. */
export function buildOpenAiChatBody(body: Record<string, unknown>, upstreamModel: string, endUserHash?: string): Record<string, unknown> {
  const upstream: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (!GATEWAY_ONLY_FIELDS.has(field)) upstream[field] = value;
  }
  upstream.model = upstreamModel;
  if ('user' in upstream) {
    if (endUserHash) upstream.user = endUserHash;
    else delete upstream.user;
  }
  return upstream;
}

/**
 * The streamed variant: `stream: true`, and usage always asked for (the gateway prices every
 * generation, whether or not the client wants the usage chunk). The client's other
 * `stream_options` pass through.
 */
export function buildOpenAiStreamBody(body: Record<string, unknown>, upstreamModel: string, endUserHash?: string): Record<string, unknown> {
  const upstream = buildOpenAiChatBody(body, upstreamModel, endUserHash);
  const clientOptions = body.stream_options !== null && typeof body.stream_options === 'object' ? body.stream_options : {};
  upstream.stream = true;
  upstream.stream_options = { ...clientOptions, include_usage: true };
  return upstream;
}
