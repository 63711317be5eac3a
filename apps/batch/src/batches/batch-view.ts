import {
  TERMINAL_BATCH_STATUSES,
  batchFileId,
  type BatchResultItem,
  type BatchStatusName,
  type BatchUsageView,
  type BatchView,
} from '@gw/contracts';
import type { Batch, BatchRequest } from '../generated/prisma/client.js';
import { sumUsage, usageView, type LineUsage } from './line-usage.js';

const seconds = (at: Date | null): number | null => (at ? Math.floor(at.getTime() / 1000) : null);

/** Spec §2.1 exactly; `results` is null unless given (non-terminal, list items, the 402 answer). */
export function batchView(batch: Batch, usage: BatchUsageView, results: BatchResultItem[] | null): BatchView {
  return {
    id: batch.id,
    object: 'batch',
    endpoint: batch.endpoint,
    model: batch.model,
    completion_window: batch.completionWindow,
    status: batch.status as BatchStatusName,
    created_at: seconds(batch.createdAt)!,
    finalized_at: seconds(batch.finalizedAt),
    request_counts: { total: batch.totalCount, completed: batch.completedCount, failed: batch.failedCount },
    error: batch.errorMessage ? { message: batch.errorMessage } : null,
    results,
    usage,
    input_file_id: batch.inputFileId,
    ...batchFiles(batch),
    expires_at: seconds(batch.expiresAt)!,
  };
}

/** An ended batch's output and error files (views of its results), each when it has lines. */
function batchFiles(batch: Batch): Pick<BatchView, 'output_file_id' | 'error_file_id'> {
  const ended = TERMINAL_BATCH_STATUSES.includes(batch.status as BatchStatusName) && !batch.resultsDeletedAt;
  return {
    output_file_id: ended && batch.completedCount > 0 ? batchFileId(batch.id, 'output') : null,
    error_file_id: ended && batch.failedCount > 0 ? batchFileId(batch.id, 'error') : null,
  };
}

/** The usage stored at finalization, or the sum of the lines finished so far. */
export function usageOf(batch: Batch, finishedLineUsages: () => LineUsage[]): BatchUsageView {
  if (batch.usage) return batch.usage as unknown as BatchUsageView;
  return usageView(sumUsage(finishedLineUsages()));
}

/** Spec §2.1.1 from a finished line. */
export function resultItem(line: Pick<BatchRequest, 'id' | 'customId' | 'response' | 'error'>): BatchResultItem {
  return {
    id: line.id,
    custom_id: line.customId,
    response: (line.response as BatchResultItem['response']) ?? null,
    error: (line.error as BatchResultItem['error']) ?? null,
  };
}
