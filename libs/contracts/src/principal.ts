import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsIP, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateNested } from 'class-validator';
import { OptionalIntIn } from './http/validators.js';

export const KEY_KINDS = ['management', 'standard', 'intern'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export const SPEND_BLOCKS = ['key_limit_reached', 'insufficient_credits'] as const;
export type SpendBlock = (typeof SPEND_BLOCKS)[number];

export const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Largest per-key override of requests per minute, and of requests or streams in flight: a
 * management key cannot lift its own keys past these (in flight: twenty times the default).
 */
export const MAX_KEY_REQUESTS_PER_MINUTE = 1_000_000;
export const MAX_KEY_CONCURRENT_REQUESTS = 1_000;

/**
 * A key's own request limits, set by a management key; a member that is null or
 * absent takes the gateway's default (KEY_RATE_LIMIT_RPM, KEY_CONCURRENCY_LIMIT).
 */
export class KeyRateLimits {
  @OptionalIntIn(1, MAX_KEY_REQUESTS_PER_MINUTE)
  requestsPerMinute?: number | null;

  @OptionalIntIn(1, MAX_KEY_CONCURRENT_REQUESTS)
  concurrentRequests?: number | null;
}

/**
 * A guardrail's routing policy as inference applies it (issue 31 item 6): empty lists mean
 * unrestricted. Models are catalog ids, providers catalog provider ids or names.
 */
export class GuardrailPolicy {
  @IsUUID()
  id!: string;

  @IsString()
  @MaxLength(200)
  name!: string;

  @IsArray()
  @IsString({ each: true })
  allowedModels!: string[];

  @IsArray()
  @IsString({ each: true })
  ignoredModels!: string[];

  @IsArray()
  @IsString({ each: true })
  allowedProviders!: string[];

  @IsArray()
  @IsString({ each: true })
  ignoredProviders!: string[];
}

/**
 * Who is calling, as the gateway authenticated them. Every internal request carries it;
 * services authorize against it and never see the bearer secret.
 */
export class Principal {
  @IsUUID()
  workspaceId!: string;

  @Matches(KEY_HASH_PATTERN)
  keyHash!: string;

  @IsIn(KEY_KINDS)
  keyKind!: KeyKind;

  @IsUUID()
  userId!: string;

  @IsOptional()
  @IsString()
  internId?: string | null;

  @IsBoolean()
  hasPersonalIdentity!: boolean;

  /**
   * The OAuth subject of the key owner's linked personal identity (OIDC), or null. It is what
   * a daemon signature names as `x-ori-invoke-user`; never taken from a request.
   */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  identitySubject?: string | null;

  /**
   * Set when the key is past its spend limit or the workspace has no credits left: inference
   * refuses with 402 `payment_required` before any upstream call (issue 3). Management
   * publishes `keys.changed` when this flips, so cached principals follow within moments.
   */
  @IsOptional()
  @IsIn(SPEND_BLOCKS)
  spendBlocked?: SpendBlock | null;

  /**
   * Set by the batch service only, when the request runs as a line of this batch: the line's
   * usage event carries it and management leaves it uncharged; the batch is charged once, as a
   * whole, when it is polled after finalization (the cost guard).
   */
  @IsOptional()
  @Matches(/^batch_[0-9a-f]{32}$/)
  batchId?: string;

  /** The key's own request limits, when it has any; the gateway enforces them. */
  @IsOptional()
  @ValidateNested()
  @Type(() => KeyRateLimits)
  rateLimits?: KeyRateLimits | null;

  /**
   * The guardrails that govern the key's routing (its workspace's default, the key's, its
   * member's), only those that restrict models or providers; management resolves them.
   */
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => GuardrailPolicy)
  guardrails?: GuardrailPolicy[];

  /**
   * The client's address as the gateway saw it, set per request (never cached with the key):
   * what the audit log records of a management change.
   */
  @IsOptional()
  @IsIP()
  clientIp?: string;
  /** The key caches its requests' answers by default, this long; inference reads it. */
  @OptionalIntIn(1)
  responseCacheTtlSeconds?: number | null;
}
