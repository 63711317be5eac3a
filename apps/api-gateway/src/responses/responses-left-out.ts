import { ResponsesRequestDto } from '@gw/contracts';
import { getMetadataStorage } from 'class-validator';
import { WARNING_HEADER } from '../messages/gateway-warnings.js';

/**
 * Every field ResponsesRequestDto declares is read by the translation or refused by the DTO;
 * any other is not sent anywhere (Codex's `client_metadata`, OpenAI's `stream_options`,
 * `prompt_cache_retention`, `context_management`, which the answer does without).
 */
const DECLARED = new Set(
  getMetadataStorage()
    .getTargetValidationMetadatas(ResponsesRequestDto, '', true, false)
    .map((metadata) => metadata.propertyName),
);

/** The `x-gateway-warning` header naming the body's fields that were left out, or undefined when none was. */
export function leftOutHeaderOf(body: object): Record<string, string> | undefined {
  const leftOut = Object.entries(body)
    .filter(([field, value]) => !DECLARED.has(field) && value !== undefined && value !== null)
    .map(([field]) => field);
  if (leftOut.length === 0) return undefined;
  const warning = leftOut.map((field) => `${field} was left out: not a field /v1/responses serves`).join('; ');
  // A header value is one line of visible ASCII.
  return { [WARNING_HEADER]: warning.replace(/[^\x20-\x7e]/g, '?') };
}
