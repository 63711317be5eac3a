import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { createHash } from 'node:crypto';
import { AuthCacheService } from './auth-cache.service.js';
import { KeyUsageTracker } from './key-usage.tracker.js';
import { IS_PUBLIC } from './public.decorator.js';

export interface AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  principal?: Principal;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Authenticates every request by its bearer key (spec §5); 401 with the envelope otherwise. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authCache: AuthCacheService,
    private readonly usage: KeyUsageTracker,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    if (typeof header !== 'string' || header.length === 0) {
      throw GatewayError.unauthorized('Missing API key: send it as "Authorization: Bearer <key>"');
    }
    const match = BEARER.exec(header);
    if (!match) throw GatewayError.unauthorized('Malformed Authorization header: expected "Bearer <key>"');
    const keyHash = createHash('sha256').update(match[1]!).digest('hex');
    const principal = await this.authCache.resolve(keyHash);
    if (!principal) throw GatewayError.unauthorized('Invalid API key');
    request.principal = principal;
    this.usage.touch(keyHash);
    return true;
  }
}
