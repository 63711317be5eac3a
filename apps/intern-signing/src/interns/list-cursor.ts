import { GatewayError } from '@gw/errors';

/** Position after an item in the newest-first order: its creation time and id (the tie-breaker). */
export interface ListPosition {
  createdAt: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opaque to clients (`next_cursor` -> `starting_after`); base64url of `<epoch ms>.<id>`. */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(`${position.createdAt.getTime()}.${position.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): ListPosition {
  const [millis, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  const createdAt = new Date(Number(millis));
  if (rest.length > 0 || !id || !UUID.test(id) || !/^\d{1,15}$/.test(millis ?? '') || Number.isNaN(createdAt.getTime())) {
    throw new GatewayError(400, 'starting_after is not a cursor this API returned', {
      metadata: { reason: 'invalid_request', retryable: false },
    });
  }
  return { createdAt, id };
}
