import { Inject, Injectable } from '@nestjs/common';
import { type Principal, SpendReserve } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { randomUUID } from 'node:crypto';
import { BATCH_ENV, type BatchEnv } from '../env.js';

/** The smallest amount the ledger counts: a hold of it fits wherever anything at all is left. */
const SMALLEST_AMOUNT = '0.000000000001';
/** The probe's hold lapses at once: it stands for no call. */
const PROBE_TTL_SECONDS = 1;

/**
 * Whether a key may start a batch: management's spend reservation asked for the smallest amount,
 * so every limit a live call meets (credits, the key's limit, the workspace's and the member's
 * budgets, a guardrail's limit) refuses it with the same 402 once nothing of it is left. A batch's
 * cost is known only when its lines have run; it is then charged once, and counted in those limits.
 */
@Injectable()
export class SpendCheck {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(BATCH_ENV) private readonly env: BatchEnv,
  ) {}

  async assertMayStart(principal: Principal): Promise<void> {
    await this.rpc.send(
      SpendReserve,
      {
        reservationId: randomUUID(),
        workspaceId: principal.workspaceId,
        keyHash: principal.keyHash,
        minimum: SMALLEST_AMOUNT,
        wanted: SMALLEST_AMOUNT,
        ttlSeconds: PROBE_TTL_SECONDS,
      },
      this.env.RPC_TIMEOUT_MS,
    );
  }
}
