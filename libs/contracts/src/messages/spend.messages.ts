import { IsInt, IsUUID, Matches, Max, Min } from 'class-validator';
import { DECIMAL_STRING } from '../events/usage-recorded.event.js';
import { KEY_HASH_PATTERN } from '../principal.js';

/** Longest a reservation may be held: the longest call inference runs, and its usage event's count. */
export const MAX_SPEND_RESERVATION_SECONDS = 3_600;

/**
 * Inference -> management, when a replica's lease on a key's spend cannot cover a call: add to the
 * lease `reservationId` (created on first use) at least `minimum` (the call's worst-case charge) and
 * at most `wanted`, against the key's limit and the workspace's credits, or refuse with 402
 * `payment_required`. Usage events that name the lease settle it as they are counted.
 */
export class SpendReserveRequest {
  @IsUUID()
  reservationId!: string;

  @IsUUID()
  workspaceId!: string;

  @Matches(KEY_HASH_PATTERN)
  keyHash!: string;

  @Matches(DECIMAL_STRING)
  minimum!: string;

  @Matches(DECIMAL_STRING)
  wanted!: string;

  @IsInt()
  @Min(1)
  @Max(MAX_SPEND_RESERVATION_SECONDS)
  ttlSeconds!: number;
}

export interface SpendReserveReply {
  /** What was added to the lease: between `minimum` and `wanted`. */
  granted: string;
}

/**
 * Inference -> management, when a replica retires a lease (idle, aged or shutting down): `unused`
 * is the part no usage event will settle (what was granted minus what its calls charged).
 */
export class SpendReleasedEvent {
  @IsUUID()
  reservationId!: string;

  @IsUUID()
  workspaceId!: string;

  @Matches(DECIMAL_STRING)
  unused!: string;
}
