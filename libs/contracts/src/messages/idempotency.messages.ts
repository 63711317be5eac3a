import { IsString, Matches } from 'class-validator';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Gateway -> inference: the client's `Idempotency-Key` on a generating request, as digests only
 * (the raw key never crosses the bus or reaches a store). Inference scopes `key` to the
 * principal's workspace and API key; `fingerprint` names the route and body it was first used with.
 */
export class IdempotencyRef {
  @IsString()
  @Matches(SHA256_HEX)
  key!: string;

  @IsString()
  @Matches(SHA256_HEX)
  fingerprint!: string;
}
