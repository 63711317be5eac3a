import type { ChatCreateRequest } from '@gw/contracts';

/** The answer fields routing metadata may go under. */
export type MetadataField = 'service_metadata' | 'openrouter_metadata';

/** The field the caller's opt-in header names: `openrouter_metadata` for `X-OpenRouter-Metadata` alone, else the spec's. */
export function metadataField(request: Pick<ChatCreateRequest, 'metadataField'>): MetadataField {
  return request.metadataField ?? 'service_metadata';
}
