import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '@gw/contracts';
import type { AuthenticatedRequest } from './api-key.guard.js';

/** The principal the ApiKeyGuard attached to the request. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without ApiKeyGuard');
  return principal;
});
