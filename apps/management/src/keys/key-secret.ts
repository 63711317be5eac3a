import { createHash, randomBytes } from 'node:crypto';

/** Every secret starts with this, so leaked keys are easy to find by secret scanners. */
export const KEY_PREFIX = 'sk-gw-v1-';

export interface NewKeySecret {
  secret: string;
  hash: string;
  label: string;
}

/** sha256 of the secret as 64 lower-case hex: how keys are stored and identified (spec §2.2). */
export function hashKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A masked form that shows enough to recognise a key and nothing to use it. */
export function maskKeySecret(secret: string): string {
  const body = secret.startsWith(KEY_PREFIX) ? secret.slice(KEY_PREFIX.length) : secret;
  return `${KEY_PREFIX}${body.slice(0, 3)}...${body.slice(-4)}`;
}

export function generateKeySecret(): NewKeySecret {
  const secret = KEY_PREFIX + randomBytes(32).toString('hex');
  return { secret, hash: hashKeySecret(secret), label: maskKeySecret(secret) };
}
