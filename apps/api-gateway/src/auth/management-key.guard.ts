import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { GatewayError } from '@gw/errors';
import type { AuthenticatedRequest } from './api-key.guard.js';

/**
 * A controller whose every route needs a management key, checked as a guard so a key that may
 * not manage the resource is refused before its body or query is validated (the body pipes run
 * after guards) and learns nothing about the rules. Each resource answers as the spec lists it:
 * presets 403 `permission_denied` (§4.6), BYOK 401 as management answers it.
 */
export class ManagementKeyGuard implements CanActivate {
  constructor(private readonly refusal: () => GatewayError) {}

  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (principal?.keyKind !== 'management') throw this.refusal();
    return true;
  }
}
