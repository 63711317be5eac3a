import type { UsageRecordedEvent } from '@gw/contracts';
import { GatewayError, type ErrorMetadata, type ErrorType } from '@gw/errors';
import { UpstreamFailure } from '../upstream/upstream-failure.js';

export interface StoredError {
  status: number;
  message: string;
  errorType: ErrorType;
  metadata?: ErrorMetadata;
}

/**
 * What a retry with the same key gets, with the usage events the first request billed (sent
 * again on every replay: each is counted once by its generation id, so a first request that died
 * between storing its outcome and publishing its events is billed by its retry). Never the
 * request body, only what was answered.
 */
export type StoredOutcome =
  | { kind: 'answer'; answer: unknown; events: UsageRecordedEvent[] }
  | { kind: 'stream'; packets: string[]; error?: StoredError; events: UsageRecordedEvent[] }
  | { kind: 'error'; error: StoredError; events: UsageRecordedEvent[] }
  /** Larger than IDEMPOTENCY_MAX_BYTES: billed once, not replayed. */
  | { kind: 'unstored'; events: UsageRecordedEvent[] };

/** The error a failed run ends with, as its client saw it (a provider failure as its gateway error). */
export function clientErrorOf(error: unknown): GatewayError | undefined {
  if (error instanceof UpstreamFailure) return error.gatewayError;
  return error instanceof GatewayError ? error : undefined;
}

/**
 * A failure a retry may fix (a lost replica or reply, an overloaded or unreachable provider, a
 * store that did not answer): when nothing was billed its key is given up so the retry runs
 * afresh. Every other failure (a 400, a 402, a refusal) is the outcome, stored and repeated.
 */
export function worthRetrying(error: GatewayError | undefined): boolean {
  if (!error) return true;
  if (error.metadata?.retryable === true) return true;
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
}

export function storedErrorOf(error: GatewayError | undefined): StoredError {
  if (!error) return { status: 500, message: 'The request failed', errorType: 'server' };
  return {
    status: error.status,
    message: error.message,
    errorType: error.errorType,
    ...(error.metadata ? { metadata: error.metadata } : {}),
  };
}

export function errorOfStored(stored: StoredError): GatewayError {
  return new GatewayError(stored.status, stored.message, { errorType: stored.errorType, metadata: stored.metadata });
}

/** The outcome as stored, or `unstored` (events only) when it is larger than `maxBytes`. */
export function serialiseOutcome(outcome: StoredOutcome, maxBytes: number): string {
  const text = JSON.stringify(outcome);
  if (Buffer.byteLength(text) <= maxBytes) return text;
  return JSON.stringify({ kind: 'unstored', events: outcome.events } satisfies StoredOutcome);
}
