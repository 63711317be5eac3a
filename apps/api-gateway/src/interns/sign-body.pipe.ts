import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { BODY_SHA256_PATTERN, type DaemonSignDto } from '@gw/contracts';
import { DtoPipe } from '../input/dto-pipes.js';

/** Sign bodies: unknown fields refused, and a 400 carries `reason: invalid_body` (spec §7.2). */
const fullCheck = new DtoPipe({ unknown: 'reject', reason: 'invalid_body' });

/**
 * The sign route's body pipe: the body nearly every signature sends,
 * `{"bodySha256": "<64 lower-case hex>"}` and nothing else, is accepted by two checks that
 * class-validator would make the same way; any other body (a `route`, an unknown or inherited
 * field, a wrong type or pattern, no object at all) goes through the full `DaemonSignDto`
 * validation, which answers it exactly as before. class-validator's pass was a twentieth of the
 * gateway's CPU per signature.
 */
export const SignBody: PipeTransform = {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (isDigestOnly(value)) return value;
    return fullCheck.transform(value, metadata);
  },
};

function isDigestOnly(value: unknown): value is DaemonSignDto {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== 'bodySha256') return false;
  const digest = (value as { bodySha256: unknown }).bodySha256;
  return typeof digest === 'string' && BODY_SHA256_PATTERN.test(digest);
}
