import type { INestApplication } from '@nestjs/common';
import { GUARDS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { OperatorKeyGuard } from '../admin/operator-key.guard.js';
import { ManagementKeyGuard } from '../auth/management-key.guard.js';
import { IS_PUBLIC } from '../auth/public.decorator.js';
import { ERROR_TYPES } from '@gw/errors';
import { ANTHROPIC_KEY_SCHEME, KEY_SCHEMES } from './api-docs.js';
import answerSchemas from './answer-schemas.json' with { type: 'json' };
import { requestSchemas, schemaOfClass, type JsonSchema } from './request-schemas.js';

/** Spec §9: the interface description's version. */
const API_VERSION = '1.0.0';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Operation = {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { description: string; content?: Record<string, { schema?: JsonSchema }>; headers?: Record<string, unknown> }>;
  requestBody?: unknown;
  parameters?: Array<{ name: string; in: string }>;
};

/** What the handler's own metadata says about an operation, beyond what @nestjs/swagger reads. */
interface HandlerFacts {
  /** `@Public()`: no key (the guard lets it through): `security: []`. */
  noKey: boolean;
  /** A `ManagementKeyGuard` on the controller or the handler. */
  managementOnly: boolean;
  /** The `OperatorKeyGuard` (the admin API): an operator's key only, every workspace key 403. */
  operatorOnly: boolean;
  /** The DTO class of a whole-query `@Query(...)` parameter. */
  queryDto?: new () => unknown;
}

const operationIdOf = (controller: string, method: string) => `${controller.replace(/Controller$/, '')}_${method}`;

/** The envelope of spec §7.1, `error_type` of §7.3 in its metadata (with `request_id`). */
const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  description: 'Every error (spec §7.1): `code` equals the HTTP status.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer', minimum: 400, maximum: 599 },
        message: { type: 'string', minLength: 1 },
        metadata: {
          type: 'object',
          description: 'The canonical error type, the request id, and details such as `reason`, `retryable`, `param` or `limit_type`.',
          properties: {
            error_type: { type: 'string', enum: [...ERROR_TYPES] },
            request_id: { type: 'string' },
            reason: { type: 'string' },
            retryable: { type: 'boolean' },
          },
        },
      },
    },
  },
};

/** Anthropic's error shape on `/v1/messages`: the envelope plus `type: "error"` and `error.type`. */
const KEY_DESCRIPTIONS: Record<string, string> = {
  managementKey:
    'A management key (`Authorization: Bearer <key>`): manages keys, BYOK credentials, presets and credits of its workspaces, and may call everything a standard key may.',
  standardKey:
    'A standard key (`Authorization: Bearer <key>`): inference (chat, responses, messages, embeddings, models), its own credits and identity, interns and signing.',
  operatorKey:
    "An operator's key (`Authorization: Bearer <key>`, `OPERATOR_API_KEYS`): the admin API only; every workspace key is refused there (403 `permission_denied`).",
  internKey:
    "An intern's own key (`Authorization: Bearer <key>`): confined to that intern (its sign operation and reads); it may not start a personal identity login (403 `person_key_required`).",
};

/** Errors any operation can answer, whatever its route (a malformed URL, a path segment over 100 characters, a fault). */
const EDGE_ERRORS: Record<string, string> = {
  '400': 'Invalid request (URL, query, body or parameters)',
  '414': 'A path segment of the URL is too long',
  '500': 'Internal error',
};
const KEY_ERRORS: Record<string, string> = { '401': 'Missing or invalid API key', '429': 'Rate limit of the key (`Retry-After`)' };
const BUS_ERRORS: Record<string, string> = {
  '502': 'A service or the provider failed',
  '503': 'A service or the provider is unavailable (retryable)',
  '504': 'A service or the provider did not answer in time',
};
const BODY_ERRORS: Record<string, string> = { '413': 'Request body too large', '415': 'Unsupported Content-Type: send application/json' };
const INTERN_ERRORS: Record<string, string> = { '421': 'Interns are served on the global hostname only' };

/** On every answer, streams included. */
const HEADERS = {
  RequestId: {
    description: "The request's id (the caller's `x-request-id` when valid, else a UUID); also in error envelopes' metadata",
    schema: { type: 'string' },
  },
  RetryAfter: { description: 'Seconds until a request may succeed', schema: { type: 'integer', minimum: 0 } },
};
const RESPONSE_HEADERS = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
/** On a 429 of the key's own limits. */
const RETRY_AFTER = { 'retry-after': { $ref: '#/components/headers/RetryAfter' } };

/** Operations answered by the gateway alone, without a service over NATS. */
const LOCAL_OPERATIONS = new Set(['Health_live', 'Health_ready', 'Health_services', 'OpenApi_document']);

/**
 * The OpenAPI 3.1 document of the public API, generated from what runs: paths,
 * methods, path parameters, request bodies and queries from the controllers and the DTO classes
 * their handlers declare (@nestjs/swagger), schemas with their bounds from the DTOs'
 * class-validator rules (class-validator-jsonschema), response bodies from the view types
 * (answer-schemas.json), per-operation statuses from the `@Answers`/`@Fails`
 * decorators, and the statuses every operation shares added here.
 */
export function buildOpenApiDocument(app: INestApplication, answers: Record<string, JsonSchema> = answerSchemas): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Inference gateway API')
    .setDescription(
      'OpenAI- and Anthropic-compatible inference, OpenRouter-style management (keys, BYOK, presets, credits) and intern signing. ' +
        'Every error is the envelope `{error: {code, message, metadata}}`; every answer carries `x-request-id`.',
    )
    .setVersion(API_VERSION)
    .build();
  const document = SwaggerModule.createDocument(app, config, { operationIdFactory: operationIdOf, autoTagControllers: true });
  const facts = handlerFacts(app);
  const schemes = Object.fromEntries(
    Object.entries(KEY_DESCRIPTIONS).map(([name, description]) => [name, { type: 'http', scheme: 'bearer', description }]),
  );
  document.components = {
    ...document.components,
    securitySchemes: {
      ...schemes,
      [ANTHROPIC_KEY_SCHEME]: {
        type: 'apiKey',
        in: 'header',
        name: 'x-api-key',
        description: 'Any key, as Anthropic clients send it (`/v1/messages` only); the bearer token wins when both are sent.',
      },
    } as never,
    schemas: { ...(document.components?.schemas ?? {}), ...answers, ErrorEnvelope: ERROR_ENVELOPE } as never,
    headers: HEADERS,
  };
  const dtoSchemas = requestSchemas();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (operation) completeOperation(path, method, operation, facts.get(operation.operationId ?? ''));
    }
  }
  useValidatorSchemas(document, dtoSchemas, facts);
  return document;
}

/** Every route the app registered, by operation id, with what its decorators and guards say. */
function handlerFacts(app: INestApplication): Map<string, HandlerFacts> {
  const facts = new Map<string, HandlerFacts>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (typeof metatype !== 'function') continue;
      const controllerGuards = (Reflect.getMetadata(GUARDS_METADATA, metatype) as unknown[] | undefined) ?? [];
      for (const method of Object.getOwnPropertyNames(metatype.prototype)) {
        const handler = (metatype.prototype as Record<string, unknown>)[method];
        if (method === 'constructor' || typeof handler !== 'function') continue;
        const guards = [...controllerGuards, ...((Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[] | undefined) ?? [])];
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, metatype, method) ?? {}) as Record<
          string,
          { index: number; data?: unknown }
        >;
        const types = (Reflect.getMetadata('design:paramtypes', metatype.prototype, method) ?? []) as Array<
          (new () => unknown) | undefined
        >;
        const query = Object.entries(args).find(([key, arg]) => key.startsWith(`${RouteParamtypes.QUERY}:`) && arg.data === undefined)?.[1];
        facts.set(operationIdOf(metatype.name, method), {
          noKey: Reflect.getMetadata(IS_PUBLIC, handler) === true || Reflect.getMetadata(IS_PUBLIC, metatype) === true,
          managementOnly: guards.some((guard) => guard instanceof ManagementKeyGuard),
          operatorOnly: guards.includes(OperatorKeyGuard),
          queryDto: query ? types[query.index] : undefined,
        });
      }
    }
  }
  return facts;
}

function completeOperation(path: string, method: string, operation: Operation, facts: HandlerFacts | undefined): void {
  const operatorOnly = facts?.operatorOnly === true;
  const noKey = facts?.noKey === true && !operatorOnly;
  if (operatorOnly) operation.security = [{ operatorKey: [] }];
  else if (noKey) operation.security = [];
  else {
    if (facts?.managementOnly) operation.security = [{ [KEY_SCHEMES.management]: [] }];
    operation.security ??= Object.values(KEY_SCHEMES).map((scheme) => ({ [scheme]: [] }));
    if (path === '/v1/messages') operation.security.push({ [ANTHROPIC_KEY_SCHEME]: [] });
  }
  const shared = {
    ...EDGE_ERRORS,
    ...(noKey ? {} : KEY_ERRORS),
    ...(LOCAL_OPERATIONS.has(operation.operationId ?? '') ? {} : BUS_ERRORS),
    ...(operation.requestBody || method === 'post' || method === 'patch' || method === 'delete' ? BODY_ERRORS : {}),
    ...(path.startsWith('/v1/interns') ? INTERN_ERRORS : {}),
    ...(operatorOnly ? { '403': 'A workspace key (any kind): the admin API takes an operator key' } : {}),
  };
  for (const [status, description] of Object.entries(shared)) {
    operation.responses[status] ??= {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    response.headers = { ...response.headers, ...RESPONSE_HEADERS, ...(status === '429' && !noKey ? RETRY_AFTER : {}) };
  }
  operation.responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * @nestjs/swagger sees the DTO classes but not their rules (it reads `@ApiProperty`): their
 * schemas are replaced by class-validator-jsonschema's, and a query DTO becomes one query
 * parameter per property, with its bounds. Only the schemas the document reaches are kept.
 */
function useValidatorSchemas(document: OpenAPIObject, dtoSchemas: Record<string, JsonSchema>, facts: Map<string, HandlerFacts>): void {
  const schemas = document.components!.schemas as Record<string, JsonSchema>;
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      const dto = operation && facts.get(operation.operationId ?? '')?.queryDto;
      if (!operation || !dto) continue;
      const schema = schemaOfClass(dto);
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const queryParameters = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => ({
        name,
        in: 'query',
        required: required.has(name),
        schema: property,
      }));
      operation.parameters = [...(operation.parameters ?? []).filter((parameter) => parameter.in !== 'query'), ...queryParameters];
    }
  }
  for (const name of Object.keys(schemas)) if (dtoSchemas[name]) schemas[name] = dtoSchemas[name]!;
  const reachable = new Set<string>();
  const visit = (node: unknown) => {
    for (const match of JSON.stringify(node).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = match[1]!;
      if (reachable.has(name)) continue;
      reachable.add(name);
      schemas[name] ??= dtoSchemas[name] as never;
      visit(schemas[name]);
    }
  };
  visit(document.paths);
  for (const name of Object.keys(schemas)) if (!reachable.has(name)) delete schemas[name];
  document.components!.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as never;
}
