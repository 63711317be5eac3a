import {
  CLIENT_HEADER_MAX_LENGTH,
  SESSION_ID_MAX_LENGTH,
  type ClientHeaders,
  type Principal,
  type ResponseCacheControls,
} from '@gw/contracts';
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
 * Idempotency-Key under the door's `route`, the response-cache controls) and the client's
 * identifying headers its generations record.
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
  client: ClientHeaders;
} {
  const session = sessionHeaderOf(sessionHeader);
  return {
    principal,
    body,
    sessionId: body.session_id ?? session,
    ...metadataOptIn(headers),
    idempotency: idempotencyOf(headers, route, body),
    cache: cacheControlsOf(headers),
    client: clientHeadersOf(headers),
  };
}

/**
 * `HTTP-Referer` (OpenRouter's app attribution header; else the standard `Referer`), `User-Agent`
 * and `Origin`, each cut to what a generation records: a long header is kept in part, never refused.
 */
export function clientHeadersOf(headers: RequestHeaders): ClientHeaders {
  const client: ClientHeaders = {};
  const put = (field: keyof ClientHeaders, value: string | string[] | undefined) => {
    const text = Array.isArray(value) ? value[0] : value;
    if (text) client[field] = text.slice(0, CLIENT_HEADER_MAX_LENGTH);
  };
  put('httpReferer', headers['http-referer'] ?? headers.referer);
  put('userAgent', headers['user-agent']);
  put('origin', headers.origin);
  return client;
}
