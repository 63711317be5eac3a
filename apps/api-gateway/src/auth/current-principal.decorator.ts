import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '@gw/contracts';
import { isIP } from 'node:net';
import type { AuthenticatedRequest } from './api-key.guard.js';

/**
 * The principal the ApiKeyGuard attached to the request, with the client's address (what the
 * audit log records of a change); a copy, since the guard's principal is the cached one.
 */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest & { ip?: string }>();
  const principal = request.principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without ApiKeyGuard');
  return isIP(request.ip ?? '') ? { ...principal, clientIp: request.ip } : principal;
});
