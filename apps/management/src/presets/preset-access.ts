import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

/** Spec §4.6 / §5: only management keys may use presets' management operations; others get 403. */
export function requirePresetManager(principal: Principal): void {
  if (principal.keyKind !== 'management') {
    throw new GatewayError(403, 'Only management keys may manage presets', {
      errorType: 'permission_denied',
      metadata: { reason: 'management_key_required' },
    });
  }
}

export function presetNotFound(slug: string): GatewayError {
  return GatewayError.notFound(`No preset with slug "${slug}"`);
}
