/**
 * Gateway -> USAGE `events.usage.failed`: a request of an authenticated key answered with an error (not
 * 401), `Nats-Msg-Id` = `failureId` (new per failure: request ids may repeat). Broken streams are not
 * sent here: they are failed generations on `events.usage.recorded`.
 */
export interface RequestFailedEvent {
  failureId: string;
  /** The request id answered in the envelope's metadata (the caller's `x-request-id` when usable). */
  requestId: string;
  workspaceId: string;
  keyHash: string;
  userId?: string;
  /** The model the body (or a Gemini path) named, when it named one. */
  model?: string;
  /** The canonical error type of the envelope (spec section 7.3). */
  errorType: string;
  status: number;
  /** ISO 8601, when the gateway answered. */
  createdAt: string;
}

/** Longest model name a failure keeps (longer names are cut: the model may be what was wrong). */
export const REQUEST_FAILED_MODEL_MAX = 200;
