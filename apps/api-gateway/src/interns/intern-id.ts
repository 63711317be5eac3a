import type { PipeTransform } from '@nestjs/common';
import { GatewayError } from '@gw/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Intern ids are UUIDs: any other string names no intern (404 `not_found`, spec §7.2). */
function internIdParam(internId: string): string {
  if (!UUID.test(internId)) {
    throw new GatewayError(404, 'No intern with that id is visible to this API key', {
      metadata: { reason: 'not_found', retryable: false },
    });
  }
  return internId.toLowerCase();
}

/**
 * `{internId}` as a pipe, for routes with a body: path parameters are declared before the body,
 * and Nest starts parameter pipes in that order, so a malformed id is a 404 before the body is
 * looked at (as when the handler checked it first).
 */
export const InternIdParam: PipeTransform<string, string> = { transform: internIdParam };
