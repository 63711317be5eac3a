import { RESPONSE_CACHE_TTL_MAX_SECONDS, type ResponseCacheControls } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { FastifyReply } from 'fastify';

type Headers = Record<string, string | string[] | undefined>;

/** Opt-in headers: this gateway's and the spelling OpenRouter's clients send. */
const ENABLE_HEADERS = ['x-service-cache', 'x-openrouter-cache'];
const TTL_HEADERS = ['x-service-cache-ttl', 'x-openrouter-cache-ttl'];

/** The answer's header: HIT (from the cache), MISS (stored now), REFRESH (no-cache: fetched again and stored). */
export const CACHE_STATUS_RESPONSE_HEADER = 'x-service-cache-status';

/** What inference's reply says about the cache (its `Gw-Cache` header). */
const REPLY_CACHE_HEADER = 'Gw-Cache';

/** The first bytes of a replayed stream (an SSE comment), removed before the client sees them. */
const STREAM_HIT_MARKER = ': cache HIT\n\n';
const MARKER_BYTES = new TextEncoder().encode(STREAM_HIT_MARKER);

/**
 * The request's cache controls from its headers: `X-Service-Cache: true|false` (or
 * `X-OpenRouter-Cache`), `X-Service-Cache-TTL: <seconds>`, and `Cache-Control` `no-cache`
 * (refresh), `no-store` (bypass), `private`. Undefined when none is sent (the common case).
 * The body's `cache` field is read by inference, after the preset; these headers win over it.
 */
export function cacheControlsOf(headers: Headers): ResponseCacheControls | undefined {
  const enable = first(headers, ENABLE_HEADERS);
  const ttl = first(headers, TTL_HEADERS);
  const cacheControl = single(headers['cache-control']);
  if (enable === undefined && ttl === undefined && cacheControl === undefined) return undefined;
  const controls: ResponseCacheControls = {};
  if (enable !== undefined) controls.enabled = switchValue(enable);
  if (ttl !== undefined) controls.ttlSeconds = ttlValue(ttl);
  if (cacheControl !== undefined) {
    const directives = cacheControl
      .toLowerCase()
      .split(',')
      .map((part) => part.trim());
    if (directives.includes('no-store')) controls.directive = 'bypass';
    else if (directives.includes('no-cache')) controls.directive = 'refresh';
    if (directives.includes('private')) controls.private = true;
  }
  return controls;
}

/** Reads inference's reply headers: sets the answer's cache status when the cache answered or stored it. */
export function cacheStatusFrom(reply: FastifyReply): (headers: { get(name: string): string }) => void {
  return (headers) => {
    const status = headers.get(REPLY_CACHE_HEADER);
    if (status) void reply.header(CACHE_STATUS_RESPONSE_HEADER, status);
  };
}

/** Length of the hit marker a replayed stream starts with, 0 for any other stream. */
export function streamHitMarkerLength(packet: Uint8Array): number {
  if (packet.length < MARKER_BYTES.length || packet[0] !== MARKER_BYTES[0]) return 0;
  for (let index = 1; index < MARKER_BYTES.length; index++) if (packet[index] !== MARKER_BYTES[index]) return 0;
  return MARKER_BYTES.length;
}

function first(headers: Headers, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = single(headers[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function switchValue(value: string): boolean {
  const normalised = value.trim().toLowerCase();
  if (normalised === 'true' || normalised === '1' || normalised === 'enabled') return true;
  if (normalised === 'false' || normalised === '0' || normalised === 'disabled') return false;
  throw GatewayError.badRequest('X-Service-Cache must be true or false', { param: 'x-service-cache' });
}

function ttlValue(value: string): number {
  const seconds = Number(value.trim());
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > RESPONSE_CACHE_TTL_MAX_SECONDS) {
    throw GatewayError.badRequest(`X-Service-Cache-TTL must be a whole number of seconds from 1 to ${RESPONSE_CACHE_TTL_MAX_SECONDS}`, {
      param: 'x-service-cache-ttl',
    });
  }
  return seconds;
}
