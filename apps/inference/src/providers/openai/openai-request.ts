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
