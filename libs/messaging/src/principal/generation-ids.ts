import { createHash, randomUUID } from 'node:crypto';

/**
 * Most generations one request may make, each its own usage event: the server-tool loop's model
 * calls (30 tool steps and a last turn), the plugins' model calls, and room to spare. A usage
 * event under a request's principal must be one of these slots of it.
 */
export const MAX_GENERATIONS_PER_REQUEST = 64;

/**
 * A principal's nonce (claim `n`): `<signing ms in base 36>-<20 hex>`. It makes a token unique
 * although the caller chooses the request id, and it is the stem of the request's generation ids
 * (the time keeps them `gen-<ms>-…`, which the generation reader narrows its partitions with).
 */
export function newPrincipalNonce(now: number): string {
  const random = randomUUID();
  return `${now.toString(36)}-${random.slice(0, 8)}${random.slice(24)}`;
}

/** The id of the request's generation in `slot` (0, 1, ... in the order it made them). */
export function generationIdOf(nonce: string, slot: number): string {
  return `gen-${nonce}-${slot.toString(36)}`;
}

/** Whether `generationId` is one of the request's slots (`generationIdOf(nonce, s)`, s < the maximum). */
export function isGenerationOf(generationId: string, nonce: string): boolean {
  const stem = `gen-${nonce}-`;
  if (!generationId.startsWith(stem)) return false;
  const slot = generationId.slice(stem.length);
  return /^[0-9a-z]{1,2}$/.test(slot) && slot === parseInt(slot, 36).toString(36) && parseInt(slot, 36) < MAX_GENERATIONS_PER_REQUEST;
}

/** The id of the batch a grant was signed for: one grant, one batch, so one charge. */
export function batchIdOfGrant(nonce: string): string {
  return `batch_${createHash('sha256').update(nonce).digest('hex').slice(0, 32)}`;
}
