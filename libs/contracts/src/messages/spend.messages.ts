import { IsInt, IsUUID, Matches, Max, Min } from 'class-validator';
import { DECIMAL_STRING } from '../events/usage-recorded.event.js';
import { KEY_HASH_PATTERN } from '../principal.js';

/** Longest a reservation may be held: the longest call inference runs, and its usage event's count. */
export const MAX_SPEND_RESERVATION_SECONDS = 3_600;

/**
 * Inference -> management, before a generating call: hold `amount` (the call's worst-case
 * charge) against the key's limit and the workspace's credits, or refuse with 402
 * `payment_required`. Usage events that name `reservationId` settle it as they are counted.
 */
export class SpendReserveRequest {
  @IsUUID()
  reservationId!: string;

  @IsUUID()
  workspaceId!: string;

  @Matches(KEY_HASH_PATTERN)
  keyHash!: string;

  @Matches(DECIMAL_STRING)
  amount!: string;

  @IsInt()
  @Min(1)
  @Max(MAX_SPEND_RESERVATION_SECONDS)
  ttlSeconds!: number;
}

export interface SpendReserveReply {
  reserved: true;
}

/**
 * Inference -> management, when the request that held a reservation ended: `unused` is the part
 * no usage event will settle (the worst case minus what its events charged), given back at once.
 */
export class SpendReleasedEvent {
  @IsUUID()
  reservationId!: string;

  @IsUUID()
  workspaceId!: string;

  @Matches(DECIMAL_STRING)
  unused!: string;
}
