import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { hash } from 'node:crypto';
import type { Socket } from 'node:net';
import { markAuthenticated } from '../edge/client-connections.js';
import { AuthCacheService } from './auth-cache.service.js';
import { KeyUsageTracker } from './key-usage.tracker.js';
import { isPublicRoute } from './public.decorator.js';

export interface AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  principal?: Principal;
  raw?: { socket?: Socket };
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The key a request presents: `Authorization: Bearer <key>` (spec §5), or Anthropic's
 * `x-api-key: <key>`, which Anthropic's clients (Claude Code, curl examples) send on
 * `/v1/messages`, or Google's `x-goog-api-key`, which @google/genai sends on `/v1beta`. The
 * bearer wins when both are present.
 */
export function presentedKey(headers: AuthenticatedRequest['headers']): string {
  const header = headers.authorization;
  if (typeof header === 'string' && header.length > 0) {
    const match = BEARER.exec(header);
    if (!match) throw GatewayError.unauthorized('Malformed Authorization header: expected "Bearer <key>"');
    return match[1]!;
  }
  const apiKey = headers['x-api-key'] ?? headers['x-goog-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim().length > 0) return apiKey.trim();
  throw GatewayError.unauthorized('Missing API key: send it as "Authorization: Bearer <key>" (or "x-api-key: <key>")');
}

/** Authenticates every request by its key (spec §5; `presentedKey`); 401 with the envelope otherwise. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authCache: AuthCacheService,
    private readonly usage: KeyUsageTracker,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (isPublicRoute(this.reflector, context)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // One-shot hash (no Hash object per request).
    const keyHash = hash('sha256', presentedKey(request.headers), 'hex');
    const principal = await this.authCache.resolve(keyHash);
    if (!principal) throw GatewayError.unauthorized('Invalid API key');
    request.principal = principal;
    markAuthenticated(request.raw?.socket);
    this.usage.touch(keyHash);
    return true;
  }
}
