import { SESSION_ID_MAX_LENGTH, type Principal, type ResponseCacheControls } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { idempotencyOf } from '../idempotency/idempotency-key.js';
import { cacheControlsOf } from '../response-cache/cache-headers.js';
import { metadataOptIn } from './service-metadata-header.js';

type RequestHeaders = Record<string, string | string[] | undefined>;

/** The `x-session-id` header, refused when longer than a session id may be. */
export function sessionHeaderOf(header: string | undefined): string | undefined {
  if (header !== undefined && header.length > SESSION_ID_MAX_LENGTH) {
    throw GatewayError.badRequest(`x-session-id must be at most ${SESSION_ID_MAX_LENGTH} characters`);
  }
  return header;
}

/**
 * What a front door sends inference for a client's body: the body as received (validated, not
 * rebuilt, so fields the gateway does not model still reach providers), the session (the body's
 * `session_id` wins over the header), and what the headers ask (routing metadata, the
 * Idempotency-Key under the door's `route`, the response-cache controls).
 */
export function frontDoorPayload<Body extends { session_id?: string }>(
  principal: Principal,
  body: Body,
  headers: RequestHeaders,
  sessionHeader: string | undefined,
  route: string,
): {
  principal: Principal;
  body: Body;
  sessionId: string | undefined;
  serviceMetadata: boolean;
  metadataField?: 'openrouter_metadata';
  idempotency: ReturnType<typeof idempotencyOf>;
  cache: ResponseCacheControls | undefined;
} {
  const session = sessionHeaderOf(sessionHeader);
  return {
    principal,
    body,
    sessionId: body.session_id ?? session,
    ...metadataOptIn(headers),
    idempotency: idempotencyOf(headers, route, body),
    cache: cacheControlsOf(headers),
  };
}
