import type { IdempotencyRef } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { createHash } from 'node:crypto';

const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The `Idempotency-Key` of a generating request as inference keeps it: the key and the request
 * (route and body as received) as digests, so neither the key nor the prompt is stored. Inference
 * scopes the key to the caller's workspace and API key. No header: undefined; a malformed one: 400.
 */
export function idempotencyOf(
  headers: Record<string, string | string[] | undefined>,
  route: string,
  body: unknown,
): IdempotencyRef | undefined {
  const header = headers[IDEMPOTENCY_KEY_HEADER];
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || header.length === 0 || header.length > IDEMPOTENCY_KEY_MAX_LENGTH || !PRINTABLE_ASCII.test(header))
    throw GatewayError.badRequest(`Idempotency-Key must be one header of 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`, {
      reason: 'invalid_idempotency_key',
    });
  return { key: sha256(header), fingerprint: sha256(`${route}\n${JSON.stringify(body)}`) };
}
