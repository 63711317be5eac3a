import { Injectable } from '@nestjs/common';
import type { Batch } from '../generated/prisma/client.js';

/** The upstream batch of a natively run batch, as stored in `batches.upstream`. */
export interface UpstreamBatch {
  provider: string;
  upstreamBatchId: string;
}

export type NativeSubmission = { native: false } | { native: true; upstream: UpstreamBatch };

/**
 * The seam of the native path (issue 13: batches run at the provider's own batch API, through
 * inference's adapters). A batch whose model has no endpoint with a batch API is run by this
 * service line by line (`native: false`). The implementation over the
 * `inference.batches.native.*` subjects replaces this one when that contract lands; until
 * then every batch runs here.
 */
@Injectable()
export class NativeBatches {
  async submit(_batch: Batch): Promise<NativeSubmission> {
    return { native: false };
  }

  /** Polls an upstream batch; returns true once its results are stored as lines. */
  async poll(_batch: Batch): Promise<boolean> {
    return false;
  }

  async cancel(_batch: Batch): Promise<void> {}

  /** Deletes the upstream batch and its files (a failure is a 502, spec §4.1). */
  async delete(_batch: Batch): Promise<{ provider: string; status: string } | undefined> {
    return undefined;
  }
}
