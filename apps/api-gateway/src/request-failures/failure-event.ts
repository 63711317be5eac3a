import { REQUEST_FAILED_MODEL_MAX, type Principal, type RequestFailedEvent } from '@gw/contracts';
import type { GatewayError } from '@gw/errors';

/**
 * The routes whose requests analytics counts (the inference front doors, which make generations):
 * a failure elsewhere (a missing key id, a member's 403 on analytics) is no failed request of a model.
 */
const FRONT_DOORS = [
  /^\/v1\/chat\/completions$/,
  /^\/v1\/responses$/,
  /^\/v1\/messages$/,
  /^\/v1\/embeddings$/,
  /^\/v1\/presets\/[^/]+\/chat\/completions$/,
];
/** Gemini's doors carry the model in the path: `/v1beta/models/{model}:generateContent`. */
const GEMINI_DOOR = /^\/(?:v1beta|v1)\/models\/(.+):(?:generateContent|streamGenerateContent)$/;

export interface FailedRequest {
  method: string;
  url: string;
  id: string;
  principal?: Principal;
  body?: unknown;
}

/**
 * What a failed request records, or undefined when it records nothing: no authenticated key (the
 * 401s: no tenant to count it for), or not a front door. The gateway's own 5xx count too.
 */
export function failureEventOf(request: FailedRequest, error: GatewayError, failureId: string, now: Date): RequestFailedEvent | undefined {
  const { principal } = request;
  if (!principal || error.status === 401 || error.status < 400 || request.method !== 'POST') return undefined;
  const path = request.url.split('?', 1)[0]!;
  const gemini = GEMINI_DOOR.exec(path);
  if (!gemini && !FRONT_DOORS.some((door) => door.test(path))) return undefined;
  const model = gemini ? safeDecode(gemini[1]!) : modelOfBody(request.body);
  return {
    failureId,
    requestId: request.id.slice(0, 128),
    workspaceId: principal.workspaceId,
    keyHash: principal.keyHash,
    ...(principal.userId ? { userId: principal.userId } : {}),
    ...(model ? { model: model.slice(0, REQUEST_FAILED_MODEL_MAX) } : {}),
    errorType: error.errorType,
    status: error.status,
    createdAt: now.toISOString(),
  };
}

function modelOfBody(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const model = (body as { model?: unknown }).model;
  return typeof model === 'string' && model.trim().length > 0 ? model.trim() : undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
