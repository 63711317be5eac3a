import { REQUEST_FAILED_MODEL_MAX, USAGE_BATCH_MAX_EVENTS, type RequestFailedEvent } from '@gw/contracts';
import { isErrorType } from '@gw/errors';

const decoder = new TextDecoder();
const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;
const KEY_HASH = /^[\da-f]{64}$/;
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;

/**
 * One message of `events.usage.failed` as validated failures: the bare event or a `{events}`
 * batch (an invalid member is left out and reported). Null when nothing in it is valid (poison:
 * the consumer terminates it). Only the declared properties are kept.
 */
export function parseRequestFailedEvents(payload: Uint8Array, onInvalid?: (index: number) => void): RequestFailedEvent[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(payload));
  } catch {
    return null;
  }
  const batch = parsed && typeof parsed === 'object' ? (parsed as { events?: unknown }).events : undefined;
  if (!Array.isArray(batch)) {
    const event = validRequestFailedEvent(parsed);
    return event ? [event] : null;
  }
  if (batch.length === 0 || batch.length > USAGE_BATCH_MAX_EVENTS) return null;
  const events: RequestFailedEvent[] = [];
  for (const [index, candidate] of batch.entries()) {
    const event = validRequestFailedEvent(candidate);
    if (event) events.push(event);
    else onInvalid?.(index);
  }
  return events.length > 0 ? events : null;
}

/** The event with only its declared properties, or null when one is missing or out of bounds. */
export function validRequestFailedEvent(candidate: unknown): RequestFailedEvent | null {
  if (!candidate || typeof candidate !== 'object' || Array.isArray(candidate)) return null;
  const value = candidate as Record<string, unknown>;
  const { failureId, requestId, workspaceId, keyHash, userId, model, errorType, status, createdAt } = value;
  const valid =
    typeof failureId === 'string' &&
    UUID.test(failureId) &&
    typeof requestId === 'string' &&
    requestId.length > 0 &&
    requestId.length <= 128 &&
    typeof workspaceId === 'string' &&
    UUID.test(workspaceId) &&
    typeof keyHash === 'string' &&
    KEY_HASH.test(keyHash) &&
    (userId === undefined || userId === null || (typeof userId === 'string' && UUID.test(userId))) &&
    (model === undefined || model === null || (typeof model === 'string' && model.length <= REQUEST_FAILED_MODEL_MAX)) &&
    isErrorType(errorType) &&
    Number.isInteger(status) &&
    (status as number) >= 400 &&
    (status as number) <= 599 &&
    typeof createdAt === 'string' &&
    ISO_UTC.test(createdAt) &&
    !Number.isNaN(Date.parse(createdAt));
  if (!valid) return null;
  return {
    failureId,
    requestId,
    workspaceId,
    keyHash,
    ...(typeof userId === 'string' ? { userId } : {}),
    ...(typeof model === 'string' && model.length > 0 ? { model } : {}),
    errorType,
    status: status as number,
    createdAt,
  };
}
