import { BATCH_ENDPOINTS, type NativeBatchHandle } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

/** Provider ids go into URL paths: letters, digits, `_`, `-` only (no `/` or `..` to walk elsewhere with the key). */
const PROVIDER_ID = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * The handle the batch service sent back, checked: it is opaque to that service but must be
 * one inference wrote (a newer shape after an upgrade is refused with 400, not misread).
 */
export function parseHandle(raw: Record<string, unknown>): NativeBatchHandle {
  const string = (field: string) => typeof raw[field] === 'string' && (raw[field] as string).length > 0;
  const valid =
    raw.v === 1 &&
    (raw.api === 'openai' || raw.api === 'anthropic') &&
    ['provider', 'endpointId', 'model', 'upstreamModel', 'batchId', 'workspaceId', 'upstreamBatchId'].every(string) &&
    (BATCH_ENDPOINTS as readonly unknown[]).includes(raw.endpoint) &&
    typeof raw.isByok === 'boolean' &&
    (raw.isByok === false || string('byokCredentialId')) &&
    PROVIDER_ID.test(String(raw.upstreamBatchId)) &&
    (raw.inputFileId === undefined || (string('inputFileId') && PROVIDER_ID.test(String(raw.inputFileId)))) &&
    typeof raw.submittedAt === 'number' &&
    (raw.lineOptions === undefined || (raw.lineOptions !== null && typeof raw.lineOptions === 'object'));
  if (!valid) throw GatewayError.badRequest('handle is not a native batch handle inference issued');
  return raw as unknown as NativeBatchHandle;
}
