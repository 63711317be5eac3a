import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { KeyKind } from '@gw/contracts';
import answerSchemas from './answer-schemas.json' with { type: 'json' };

/** A response body named in `libs/contracts/src/http/http-answers.ts` (checked at compile time). */
export type AnswerName = keyof typeof answerSchemas;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The security scheme of each key kind (the document's `components.securitySchemes`). */
export const KEY_SCHEMES: Record<KeyKind, string> = { management: 'managementKey', standard: 'standardKey', intern: 'internKey' };
/** Anthropic's header, accepted on `/v1/messages` as well as the bearer token. */
export const ANTHROPIC_KEY_SCHEME = 'anthropicApiKey';

/** The operation's one-line summary and, where it helps, a longer description. */
export const Doc = (summary: string, description?: string) => ApiOperation({ summary, ...(description ? { description } : {}) });

/** A deprecated operation (spec §9), with the operation that replaces it. */
export const DeprecatedDoc = (summary: string, successor: string) =>
  ApiOperation({ summary, deprecated: true, description: `Deprecated: use ${successor}.` });

/** A JSON answer with its status. */
export const Answers = (status: number, answer: AnswerName, description: string) =>
  ApiResponse({ status, description, content: { 'application/json': { schema: ref(answer) } } });

/** A 200 that is JSON, or Server-Sent Events when the body asks for `stream: true`. */
export const AnswersOrStreams = (answer: AnswerName, events: string) =>
  ApiResponse({
    status: 200,
    description: `The answer; with \`stream: true\`, ${events}`,
    content: { 'application/json': { schema: ref(answer) }, 'text/event-stream': { schema: { type: 'string' } } },
  });

/** An HTML page (the OIDC callback's browser page), with each status it is answered with. */
export const AnswersHtml = (statuses: Record<number, string>) =>
  applyDecorators(
    ...Object.entries(statuses).map(([status, description]) =>
      ApiResponse({ status: Number(status), description, content: { 'text/html': { schema: { type: 'string' } } } }),
    ),
  );

/**
 * The errors this operation answers besides those every operation can (added by
 * `openapi-document.ts`: 400 bad URL, 414, 500; 401 and 429 with a key; 502/503/504 through
 * the bus; 413/415 with a body), each with the envelope of spec §7.1.
 */
export const Fails = (errors: Record<number, string>) =>
  applyDecorators(
    ...Object.entries(errors).map(([status, description]) =>
      ApiResponse({ status: Number(status), description, content: { 'application/json': { schema: ref('ErrorEnvelope') } } }),
    ),
  );

/**
 * The headers every inference front door reads (chat, responses, messages): the session id and
 * the routing-metadata opt-in under its three spellings (the value is an open enum: only
 * `enabled` turns it on).
 */
export const InferenceHeaders = () =>
  applyDecorators(
    ApiHeader({
      name: 'x-session-id',
      required: false,
      description: "Session id (sticky routing, cache affinity); the body's `session_id` wins when both are sent",
      schema: { type: 'string', maxLength: 256 },
    }),
    ApiHeader({
      name: 'x-service-metadata',
      required: false,
      description: '`enabled` adds the routing metadata under `service_metadata`; `disabled` (the default) and other values do not',
      schema: { type: 'string', examples: ['enabled', 'disabled'] },
    }),
    ApiHeader({
      name: 'x-openrouter-metadata',
      required: false,
      description: 'The same opt-in as `x-service-metadata`, as `@openrouter/sdk` sends it (`xOpenRouterMetadata`)',
      schema: { type: 'string', examples: ['enabled', 'disabled'] },
    }),
    ApiHeader({
      name: 'x-service-experimental-metadata',
      required: false,
      deprecated: true,
      description: 'Deprecated spelling of `x-service-metadata`, still accepted',
      schema: { type: 'string', examples: ['enabled', 'disabled'] },
    }),
  );

/** Which key kinds may call the operation (management, standard, intern), as OpenAPI security alternatives. */
export const KeyKinds = (...kinds: KeyKind[]) => applyDecorators(...kinds.map((kind) => ApiSecurity(KEY_SCHEMES[kind])));

/** What inference can answer besides the shared errors (spec §7.3 error types, and the upstream statuses). */
export const INFERENCE_FAILS = {
  402: 'reason `key_limit_reached` or `insufficient_credits`',
  403: 'The key may not use this model or provider, or the content was refused',
  404: 'Unknown model or preset',
  408: 'The provider did not answer in time',
  409: 'Conflict with the request (e.g. a preset changed meanwhile)',
  422: 'The provider could not process the request',
};

/** A path parameter with its shape (the pipe that checks it answers 404, or 400 where it says so). */
export const PathParam = (name: string, schema: Record<string, unknown>, description: string) =>
  ApiParam({ name, required: true, schema, description });
