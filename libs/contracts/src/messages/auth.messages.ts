import { Matches } from 'class-validator';
import { KEY_HASH_PATTERN, type Principal } from '../principal.js';

/** Gateway -> management: who owns this key hash? */
export class AuthResolveRequest {
  @Matches(KEY_HASH_PATTERN)
  keyHash!: string;
}

/** Management's answer: the principal, or `null` when the key is unknown, disabled or expired. */
export interface AuthResolveReply {
  principal: Principal | null;
  /** Seconds the gateway may cache this answer; bounded so an expiry is honoured. */
  ttlSeconds: number;
}
