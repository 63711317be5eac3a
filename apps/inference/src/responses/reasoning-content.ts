import { GatewayError } from '@gw/errors';
import { OPENAI_RESPONSES_REASONING_FORMAT } from '../providers/openai-responses/openai-responses-response.js';

type Json = Record<string, unknown>;

/** Marks `encrypted_content` this gateway wrote. */
const PREFIX = 'gwr1.';

/**
 * A reasoning item's `encrypted_content` as this gateway returns it: the generation's
 * reasoning details (an Anthropic thinking block with its signature, an OpenAI encrypted
 * item, ...) packed into one opaque string, so a client that sends the item back gets the
 * same details replayed to whichever provider answers next. Not a secret: it is what the
 * provider already returned to this client.
 */
export function encodeReasoningContent(details: readonly Json[]): string {
  return PREFIX + Buffer.from(JSON.stringify(details), 'utf8').toString('base64url');
}

/** A reasoning input item back as reasoning details (the internal form's). */
export function decodeReasoningContent(item: Json): Json[] {
  const content = item.encrypted_content;
  if (typeof content === 'string' && content.startsWith(PREFIX)) {
    let details: unknown;
    try {
      details = JSON.parse(Buffer.from(content.slice(PREFIX.length), 'base64url').toString('utf8'));
    } catch {
      details = undefined;
    }
    if (!Array.isArray(details) || !details.every((detail) => detail !== null && typeof detail === 'object' && !Array.isArray(detail))) {
      throw GatewayError.badRequest('a reasoning item carries encrypted_content this gateway did not write (it is altered)');
    }
    return details as Json[];
  }
  // An item from OpenAI itself (or without content): its summaries and encrypted content as OpenAI's details.
  const id = typeof item.id === 'string' ? item.id : null;
  const details: Json[] = [];
  for (const summary of Array.isArray(item.summary) ? (item.summary as Json[]) : []) {
    if (typeof summary.text === 'string')
      details.push({
        type: 'reasoning.summary',
        summary: summary.text,
        id,
        format: OPENAI_RESPONSES_REASONING_FORMAT,
        index: details.length,
      });
  }
  if (typeof content === 'string')
    details.push({ type: 'reasoning.encrypted', data: content, id, format: OPENAI_RESPONSES_REASONING_FORMAT, index: details.length });
  return details;
}
