/** The response header that repeats an answer's `gateway_warnings` (what was left out, and why). */
export const WARNING_HEADER = 'x-gateway-warning';

const MARKER = '"gateway_warnings"';

/**
 * The header for an answer that carries top-level `gateway_warnings` (messages.service sets it
 * when an endpoint could not take a field the answer does without). The JSON is only parsed
 * when the key appears in it, so answers without warnings cost one substring search.
 */
export function warningHeaderOf(json: string): Record<string, string> | undefined {
  if (!json.includes(MARKER)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  const record = parsed as { gateway_warnings?: unknown; message?: { gateway_warnings?: unknown } } | null;
  const warnings = record?.gateway_warnings ?? record?.message?.gateway_warnings;
  if (!Array.isArray(warnings) || warnings.length === 0) return undefined;
  // A header value is one line of visible ASCII.
  return {
    [WARNING_HEADER]: warnings
      .map(String)
      .join('; ')
      .replace(/[^\x20-\x7e]/g, '?'),
  };
}

/** The same for a stream: the `data:` of its first event (message_start, whose message carries them). */
export function streamWarningHeaderOf(firstPacket: string): Record<string, string> | undefined {
  if (!firstPacket.includes(MARKER)) return undefined;
  const data = /^data: (.*)$/m.exec(firstPacket)?.[1];
  return data === undefined ? undefined : warningHeaderOf(data);
}
