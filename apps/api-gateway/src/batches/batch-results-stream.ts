import { BatchesResults, type BatchResultsPage, type BatchResultsPageRequest } from '@gw/contracts';
import type { RpcClient } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { asBatchServiceError } from './batch-service-error.js';

const RESULTS_PAGE = 500;

/**
 * A batch's results as JSONL (spec §2.1.1 items, one a line), read from the batch service page
 * by page: `/v1/batches/{id}/results`, and the batch's output and error files (`status`).
 */
export async function streamBatchResults(
  rpc: RpcClient,
  ref: Pick<BatchResultsPageRequest, 'principal' | 'batchId' | 'status'>,
  reply: FastifyReply,
): Promise<void> {
  const send = (afterIndex: number): Promise<BatchResultsPage> =>
    rpc.send(BatchesResults, { ...ref, afterIndex, limit: RESULTS_PAGE }).catch((error: unknown) => {
      throw asBatchServiceError(error);
    });
  // The first page is fetched before any byte is sent, so a 402 / 404 / 410 is a proper answer.
  let page = await send(-1);
  reply.raw.writeHead(200, { 'content-type': 'application/jsonl; charset=utf-8' });
  try {
    for (;;) {
      const text = page.items.map((item) => `${JSON.stringify(item)}\n`).join('');
      if (text && !reply.raw.write(text)) await new Promise((resolve) => reply.raw.once('drain', resolve));
      if (page.nextAfterIndex === null || reply.raw.destroyed) break;
      page = await send(page.nextAfterIndex);
    }
    reply.raw.end();
  } catch (error) {
    // The status is sent: a later page that fails cuts the body short, never ends it cleanly.
    reply.raw.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}
