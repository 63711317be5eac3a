import { Ajv, type SchemaObject } from 'ajv';
import { isISO8601, isUUID } from 'class-validator';
import {
  CLASS_VALIDATOR_LENGTH_KEYWORDS,
  CLIENT_HEADER_MAX_LENGTH,
  CV_MAX_LENGTH,
  DECIMAL_STRING,
  KEY_HASH_PATTERN,
  SIGNED_DECIMAL_STRING,
  TRACEPARENT_PATTERN,
  type UsageRecordedEvent,
} from '@gw/contracts';

/**
 * The rules of `UsageRecordedEvent` (libs/contracts, class-validator decorators) as one JSON
 * schema compiled by Ajv: the USAGE stream is consumed by every replica of inference
 * and management, and class-validator's `plainToInstance` + `validate` per event was a large share
 * of their CPU. The rules are the decorators', rule for rule, and where class-validator and JSON
 * Schema differ the schema calls class-validator's own functions (UUID, strict ISO 8601, string
 * length as validator.js counts it); `usage-event-validator.spec.ts` runs both on the same
 * inputs and proves they accept and refuse the same ones and return the same event.
 *
 * Semantics kept from the DTO and `validateDto(..., 'strip')`:
 * - `@IsOptional()` lets `null` through as well as a missing property;
 * - undeclared properties are removed (whitelist), at the top level and in `usageDetails`;
 * - a top-level property named like an `Object.prototype` member is refused (`validateDto`);
 * - `@ValidateNested()` on `usageDetails` takes an object or an array of them, nested to any depth.
 */

/** Amounts are stored with 18 decimals (numeric(38,18)); a finer cost could not be counted exactly. */
const MAX_COST_DECIMALS = 18;

const optional = (schema: SchemaObject): SchemaObject => ({ anyOf: [{ type: 'null' }, schema] });

const optionalInteger = (minimum: number): SchemaObject => ({ type: ['integer', 'null'], minimum });

const USAGE_DETAILS: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(
    [
      'cache_write_tokens',
      'prompt_audio_tokens',
      'prompt_file_tokens',
      'prompt_video_tokens',
      'completion_audio_tokens',
      'completion_image_tokens',
      'server_tool_calls_executed',
      'server_tool_calls_requested',
      'web_search_requests',
      'estimated_from_characters',
      'estimate_capped_at',
    ].map((name) => [name, optionalInteger(0)]),
  ),
};

/** Object.prototype's names (`constructor`, `toString`, `__proto__`, ...), refused as top-level keys like `validateDto` does. */
const INHERITED_NAMES = Object.getOwnPropertyNames(Object.prototype);

export const USAGE_RECORDED_EVENT_SCHEMA: SchemaObject = {
  $defs: {
    // `@ValidateNested()` walks arrays at any depth (`[[{...}]]` passes class-validator), so the
    // schema recurses too: an object, or an array of what this accepts.
    usageDetails: { anyOf: [USAGE_DETAILS, { type: 'array', items: { $ref: '#/$defs/usageDetails' } }] },
  },
  type: 'object',
  additionalProperties: false,
  required: [
    'generationId',
    'workspaceId',
    'keyHash',
    'userId',
    'model',
    'provider',
    'upstreamModel',
    'status',
    'isByok',
    'promptTokens',
    'completionTokens',
    'cachedTokens',
    'reasoningTokens',
    'tokensEstimated',
    'cost',
    'upstreamCost',
    'latencyMs',
    'createdAt',
  ],
  properties: {
    generationId: { type: 'string', [CV_MAX_LENGTH]: 128 },
    workspaceId: { type: 'string', format: 'cv-uuid' },
    keyHash: { type: 'string', pattern: KEY_HASH_PATTERN.source },
    userId: { type: 'string', format: 'cv-uuid' },
    model: { type: 'string' },
    provider: { type: 'string' },
    upstreamModel: { type: 'string' },
    status: { enum: ['succeeded', 'failed'] },
    isByok: { type: 'boolean' },
    promptTokens: { type: 'integer', minimum: 0 },
    completionTokens: { type: 'integer', minimum: 0 },
    cachedTokens: { type: 'integer', minimum: 0 },
    reasoningTokens: { type: 'integer', minimum: 0 },
    tokensEstimated: { type: 'boolean' },
    cost: { type: 'string', pattern: DECIMAL_STRING.source },
    upstreamCost: { type: 'string', pattern: DECIMAL_STRING.source },
    latencyMs: { type: 'integer', minimum: 0 },
    createdAt: { type: 'string', format: 'cv-iso8601-strict' },
    sessionId: { type: ['string', 'null'], [CV_MAX_LENGTH]: 256 },
    batchId: { type: ['string', 'null'] },
    kind: { enum: [null, 'generation', 'batch_charge'] },
    attempts: optionalInteger(1),
    endpointsTried: { type: ['array', 'null'], maxItems: 64, items: { type: 'string' } },
    attemptStatuses: { type: ['array', 'null'], maxItems: 64, items: { type: 'integer', minimum: 0 } },
    attemptLatenciesMs: { type: ['array', 'null'], maxItems: 64, items: { type: 'integer', minimum: 0 } },
    usageDetails: optional({ $ref: '#/$defs/usageDetails' }),
    reservationId: optional({ type: 'string', format: 'cv-uuid' }),
    streamed: { type: ['boolean', 'null'] },
    requestId: { type: ['string', 'null'], [CV_MAX_LENGTH]: 128 },
    finishReason: { type: ['string', 'null'], [CV_MAX_LENGTH]: 64 },
    nativeFinishReason: { type: ['string', 'null'], [CV_MAX_LENGTH]: 64 },
    upstreamId: { type: ['string', 'null'], [CV_MAX_LENGTH]: 256 },
    generationTimeMs: optionalInteger(0),
    cancelled: { type: ['boolean', 'null'] },
    serviceTier: { type: ['string', 'null'], [CV_MAX_LENGTH]: 64 },
    traceparent: { type: ['string', 'null'], pattern: TRACEPARENT_PATTERN.source },
    priceVersion: optionalInteger(1),
    cacheHit: { type: ['boolean', 'null'] },
    costAvoided: { type: ['string', 'null'], pattern: DECIMAL_STRING.source },
    responseCacheSourceId: { type: ['string', 'null'], [CV_MAX_LENGTH]: 128 },
    cacheDiscount: { type: ['string', 'null'], pattern: SIGNED_DECIMAL_STRING.source },
    presetId: { type: ['string', 'null'], [CV_MAX_LENGTH]: 64 },
    router: { type: ['string', 'null'], [CV_MAX_LENGTH]: 64 },
    numMediaPrompt: optionalInteger(0),
    numInputAudioPrompt: optionalInteger(0),
    moderationLatencyMs: optionalInteger(0),
    numSearchResults: optionalInteger(0),
    webSearchEngine: { type: ['string', 'null'], [CV_MAX_LENGTH]: 64 },
    numFetches: optionalInteger(0),
    httpReferer: { type: ['string', 'null'], [CV_MAX_LENGTH]: CLIENT_HEADER_MAX_LENGTH },
    userAgent: { type: ['string', 'null'], [CV_MAX_LENGTH]: CLIENT_HEADER_MAX_LENGTH },
    origin: { type: ['string', 'null'], [CV_MAX_LENGTH]: CLIENT_HEADER_MAX_LENGTH },
    externalUser: { type: ['string', 'null'], [CV_MAX_LENGTH]: 256 },
    principal: { type: ['string', 'null'], [CV_MAX_LENGTH]: 2048 },
  },
};

const ajv = new Ajv({
  // The whitelist of `validateDto(..., 'strip')`: undeclared properties are dropped, not refused.
  removeAdditional: 'all',
  // class-validator's `@Matches` tests the RegExp as written, without the `u` flag Ajv adds by default.
  unicodeRegExp: false,
  allErrors: false,
  strict: true,
  formats: {
    'cv-uuid': { type: 'string', validate: (value: string) => isUUID(value) },
    'cv-iso8601-strict': { type: 'string', validate: (value: string) => isISO8601(value, { strict: true }) },
  },
  // `@MaxLength(n)`: validator.js's length, by class-validator's own function.
  keywords: CLASS_VALIDATOR_LENGTH_KEYWORDS,
});

const validate = ajv.compile<UsageRecordedEvent>(USAGE_RECORDED_EVENT_SCHEMA);

/**
 * The event when `candidate` satisfies `UsageRecordedEvent`'s rules and its amounts have at most
 * 18 decimals (undeclared properties removed from it in place), null otherwise. `candidate`
 * must be freshly parsed JSON: it is modified and returned, not copied.
 */
export function validUsageRecordedEvent(candidate: unknown): UsageRecordedEvent | null {
  if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) return null;
  for (const key of INHERITED_NAMES) if (Object.hasOwn(candidate, key)) return null;
  if (!validate(candidate)) return null;
  for (const amount of [candidate.cost, candidate.upstreamCost]) {
    const point = amount.indexOf('.');
    if (point >= 0 && amount.length - point - 1 > MAX_COST_DECIMALS) return null;
  }
  return candidate;
}
