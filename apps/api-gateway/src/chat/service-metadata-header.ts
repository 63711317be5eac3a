/** The opt-in header for routing metadata (spec §4.5 leaves its name open; docs/adr). */
const SERVICE_METADATA_HEADER = 'x-service-metadata';
/** The spelling `@openrouter/sdk` sends (`xOpenRouterMetadata`). */
const OPENROUTER_METADATA_HEADER = 'x-openrouter-metadata';
/** The legacy spelling, still accepted (spec §9). */
const LEGACY_SERVICE_METADATA_HEADER = 'x-service-experimental-metadata';

/** What the caller asked for: routing metadata or not, and the answer field it goes under. */
export interface MetadataOptIn {
  serviceMetadata: boolean;
  /** Set when only `X-OpenRouter-Metadata` asked: the field `@openrouter/sdk` parses. */
  metadataField?: 'openrouter_metadata';
}

/**
 * The opt-in: `enabled` on any of the headers. The value is an open enum (`@openrouter/sdk`
 * `MetadataLevel`): `disabled`, and values this gateway does not know, leave the answer as it
 * is. The answer names the field after the header: `openrouter_metadata` for the SDK's, the
 * spec's `service_metadata` for the others (which win when both are sent).
 */
export function metadataOptIn(headers: Record<string, string | string[] | undefined>): MetadataOptIn {
  const enabled = (name: string): boolean => {
    const value = headers[name];
    return (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase() === 'enabled';
  };
  if (enabled(SERVICE_METADATA_HEADER) || enabled(LEGACY_SERVICE_METADATA_HEADER)) return { serviceMetadata: true };
  if (enabled(OPENROUTER_METADATA_HEADER)) return { serviceMetadata: true, metadataField: 'openrouter_metadata' };
  return { serviceMetadata: false };
}
