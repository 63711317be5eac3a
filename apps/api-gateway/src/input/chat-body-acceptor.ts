import { Ajv, type SchemaObject } from 'ajv';
import {
  CLASS_VALIDATOR_LENGTH_KEYWORDS,
  CV_MAX_LENGTH,
  CV_MIN_LENGTH,
  MESSAGE_ROLES,
  SERVICE_TIERS,
  SESSION_ID_MAX_LENGTH,
} from '@gw/contracts';

/**
 * A compiled acceptor in front of class-validator for `POST /v1/chat/completions`.
 * It only ever ACCEPTS: a body it accepts is one `validateDto(ChatCompletionRequestDto, body,
 * 'keep')` accepts too, and the pipe passes it on as received (`PassThroughBody` returns the
 * raw body, so there is no instance to rebuild); anything else — a refusal, or a shape the
 * schema does not model (`tools`, `response_format`, `preset`, content parts with more
 * rules, ...) — goes to class-validator as before, which decides and words the 400.
 *
 * The schema is a strict SUBSET of the DTO's rules: every modelled field restates its
 * decorators (`@IsOptional()` admits null; `OptionalNumberIn`/`OptionalIntIn` are
 * `IsNumber`/`IsInt` + `Min`/`Max`; string lengths are validator.js's, through
 * class-validator's own `minLength`/`maxLength`), every other top-level field and every unknown
 * property of a message or of `stream_options` is declined, so inherited names (`constructor`,
 * `toString`, ...) are never accepted. `chat-body-acceptor.spec.ts` proves with fast-check that
 * it never accepts a body class-validator refuses.
 */

const numberIn = (minimum: number, maximum: number): SchemaObject => ({ type: ['number', 'null'], minimum, maximum });
const intIn = (minimum: number, maximum?: number): SchemaObject =>
  maximum === undefined ? { type: ['integer', 'null'], minimum } : { type: ['integer', 'null'], minimum, maximum };
const optionalBoolean: SchemaObject = { type: ['boolean', 'null'] };
const optionalString: SchemaObject = { type: ['string', 'null'] };
const boundedString = (max: number): SchemaObject => ({
  anyOf: [{ type: 'null' }, { type: 'string', [CV_MAX_LENGTH]: max }],
});

/**
 * Objects class-transformer copies without a class (content parts, tool calls) are modelled to
 * their leaves with no property left open: plainToInstance throws on some keys there (a nested
 * `constructor`), so a body is only accepted when every key in it is one named here.
 */
const string: SchemaObject = { type: 'string' };
const closed = (required: string[], properties: Record<string, SchemaObject>): SchemaObject => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});
const CONTENT_PART: SchemaObject = {
  anyOf: [
    closed(['type', 'text'], { type: { const: 'text' }, text: string }),
    closed(['type', 'image_url'], { type: { const: 'image_url' }, image_url: closed(['url'], { url: string, detail: string }) }),
  ],
};
const TOOL_CALL = closed(['id', 'type', 'function'], {
  id: string,
  type: string,
  function: closed(['name', 'arguments'], { name: string, arguments: string }),
});

/** `ChatMessageDto`; only its declared properties (an unknown one is declined, not refused). */
const MESSAGE: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['role'],
  properties: {
    role: { enum: [...MESSAGE_ROLES] },
    // `@IsMessageContent()`: null, a string, or parts each with a string `type`.
    content: {
      anyOf: [{ type: ['string', 'null'] }, { type: 'array', items: CONTENT_PART }],
    },
    name: optionalString,
    tool_call_id: optionalString,
    tool_calls: { type: ['array', 'null'], items: TOOL_CALL },
  },
};

export const CHAT_BODY_ACCEPTOR_SCHEMA: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  // `model` is required because `preset` is not modelled (`@ValidateIf` validates model whenever preset is absent).
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', [CV_MIN_LENGTH]: 1 },
    messages: { type: 'array', minItems: 1, items: MESSAGE },
    models: { type: ['array', 'null'], items: { type: 'string' } },
    temperature: numberIn(0, 2),
    top_p: numberIn(0, 1),
    top_k: intIn(0),
    top_a: numberIn(0, 1),
    min_p: numberIn(0, 1),
    frequency_penalty: numberIn(-2, 2),
    presence_penalty: numberIn(-2, 2),
    repetition_penalty: numberIn(0, 2),
    max_tokens: intIn(1),
    max_completion_tokens: intIn(1),
    // `@IsStopSequences(4)`: null, a string, or at most 4 strings.
    stop: { anyOf: [{ type: ['string', 'null'] }, { type: 'array', maxItems: 4, items: { type: 'string' } }] },
    n: intIn(1, 128),
    seed: { type: ['integer', 'null'] },
    logprobs: optionalBoolean,
    top_logprobs: intIn(0, 20),
    stream: optionalBoolean,
    stream_options: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { include_usage: optionalBoolean },
    },
    session_id: boundedString(SESSION_ID_MAX_LENGTH),
    user: boundedString(SESSION_ID_MAX_LENGTH),
    parallel_tool_calls: optionalBoolean,
    service_tier: { enum: [...SERVICE_TIERS, null] },
    route: { enum: ['fallback', 'sort', null] },
  },
};

const ajv = new Ajv({
  allErrors: false,
  strict: true,
  // Lengths are counted by class-validator's own functions; nothing else counts characters.
  keywords: CLASS_VALIDATOR_LENGTH_KEYWORDS,
});

const accepts = ajv.compile(CHAT_BODY_ACCEPTOR_SCHEMA);

/**
 * True when `body` is a chat-completions body that class-validator would accept, by a compiled
 * check (no instance built, nothing changed in `body`); false when it is refused OR merely
 * not modelled: then `validateDto` decides, as it always did.
 */
export function acceptsChatCompletionBody(body: unknown): boolean {
  return accepts(body);
}
