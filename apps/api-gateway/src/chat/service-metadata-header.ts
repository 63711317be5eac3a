import { GatewayError } from '@gw/errors';

/** The opt-in header for routing metadata (spec §4.5 leaves its name open; docs/adr). */
export const SERVICE_METADATA_HEADER = 'x-service-metadata';
/** The legacy spelling, still accepted (spec §9). */
export const LEGACY_SERVICE_METADATA_HEADER = 'x-service-experimental-metadata';

/**
 * True when the caller asked for `service_metadata` with `enabled` on either header;
 * `disabled` or no header means no. Any other value is a client mistake worth a 400.
 */
export function wantsServiceMetadata(headers: Record<string, string | string[] | undefined>): boolean {
  let wanted = false;
  for (const name of [SERVICE_METADATA_HEADER, LEGACY_SERVICE_METADATA_HEADER]) {
    const value = headers[name];
    if (value === undefined) continue;
    const normalized = (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase();
    if (normalized === 'enabled') wanted = true;
    else if (normalized !== 'disabled') throw GatewayError.badRequest(`${name} must be "enabled" or "disabled"`);
  }
  return wanted;
}
