import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { GatewayError } from '@gw/errors';
import { hash } from 'node:crypto';
import { presentedKey, type AuthenticatedRequest } from '../auth/api-key.guard.js';
import { AuthCacheService } from '../auth/auth-cache.service.js';
import { OperatorKeys } from './operator-keys.js';

export interface OperatorRequest extends AuthenticatedRequest {
  ip?: string;
  /** The name of the operator credential the request presented. */
  operator?: string;
}

/**
 * The admin API's guard (its routes are public to the workspace-key guard): an operator key
 * passes, named; a workspace's key of any kind is 403, since no workspace may read or change
 * what every workspace is served; anything else is 401 as for any route.
 */
@Injectable()
export class OperatorKeyGuard implements CanActivate {
  constructor(
    @Inject(OperatorKeys) private readonly operators: OperatorKeys,
    private readonly authCache: AuthCacheService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<OperatorRequest>();
    const key = presentedKey(request.headers);
    const operator = this.operators.nameOf(key);
    if (operator) {
      request.operator = operator;
      return true;
    }
    if (await this.authCache.resolve(hash('sha256', key, 'hex')))
      throw new GatewayError(403, 'The admin API takes an operator key; workspace keys cannot read or change the catalog', {
        errorType: 'permission_denied',
        metadata: { reason: 'operator_key_required' },
      });
    throw GatewayError.unauthorized('Invalid API key');
  }
}
