/** The opt-in header for routing metadata (spec §4.5 leaves its name open; docs/adr). */
export const SERVICE_METADATA_HEADER = 'x-service-metadata';
/** The spelling `@openrouter/sdk` sends (`xOpenRouterMetadata`). */
export const OPENROUTER_METADATA_HEADER = 'x-openrouter-metadata';
/** The legacy spelling, still accepted (spec §9). */
export const LEGACY_SERVICE_METADATA_HEADER = 'x-service-experimental-metadata';

const OPT_IN_HEADERS = [SERVICE_METADATA_HEADER, OPENROUTER_METADATA_HEADER, LEGACY_SERVICE_METADATA_HEADER];

/**
 * True when the caller asked for `service_metadata` with `enabled` on any of the headers.
 * The value is an open enum (`@openrouter/sdk` `MetadataLevel`): `disabled`, and values this
 * gateway does not know, leave the answer as it is (ADR 0101).
 */
export function wantsServiceMetadata(headers: Record<string, string | string[] | undefined>): boolean {
  return OPT_IN_HEADERS.some((name) => {
    const value = headers[name];
    return (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase() === 'enabled';
  });
}
