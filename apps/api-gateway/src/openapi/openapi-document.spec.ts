import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../app.module.js';
import { GatewayEnv } from '../env.js';
import { ANSWER_SCHEMAS_FILE, generateAnswerSchemas } from './answer-schemas.generate.js';
import { buildOpenApiDocument } from './openapi-document.js';
import { undescribedConstraints } from './request-schemas.js';
import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

const ROOT = resolve(import.meta.dirname, '../../../..');
/** The committed document (`npm run openapi` writes it; this test fails when it is stale). */
export const DOCUMENT_FILE = 'docs/openapi.json';
const WRITE = process.env.OPENAPI_WRITE === '1';
const asJson = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

let app: INestApplication;
let document: OpenAPIObject;

beforeAll(async () => {
  // Preview: the module graph without instances (no NATS, no Redis), which is all the scan needs.
  app = await NestFactory.create(AppModule.forRoot(new GatewayEnv()), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  // Writing: the answer schemas first, so a controller naming a new answer type can be described.
  document = WRITE ? buildOpenApiDocument(app, generateAnswerSchemas(ROOT)) : buildOpenApiDocument(app);
  // Generating runs the TypeScript checker over the contracts: far over the default 10 s on a busy machine.
}, 300_000);
afterAll(() => app?.close());

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, version 1.0.0', async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
  });

  it('carries the bounds the DTOs enforce, for bodies and queries', () => {
    const schemas = document.components!.schemas as Record<string, { properties: Record<string, Record<string, unknown>> }>;
    const chat = schemas.ChatCompletionRequestDto!.properties;
    expect(chat.temperature).toMatchObject({ minimum: 0, maximum: 2 });
    expect(chat.top_logprobs).toMatchObject({ minimum: 0, maximum: 20 });
    expect(chat.session_id).toMatchObject({ maxLength: 256 });
    expect(JSON.stringify(chat.metadata)).toContain('"maxProperties":16');
    // null clears a key's limit: @IsOptional() fields are nullable.
    expect(schemas.UpdateKeyDto!.properties.limit).toMatchObject({ type: ['number', 'null'] });
    const listPresets = document.paths['/v1/presets']!.get!.parameters as Array<{
      name: string;
      in: string;
      schema: Record<string, unknown>;
    }>;
    expect(listPresets.find((parameter) => parameter.name === 'limit')).toMatchObject({
      in: 'query',
      schema: { minimum: 1, maximum: 100 },
    });
  });

  it('says which keys each operation takes, and marks the deprecated sign alias', () => {
    const security = (path: string, method: 'get' | 'post') => document.paths[path]![method]!.security;
    expect(security('/v1/presets', 'get')).toEqual([{ managementKey: [] }]);
    expect(security('/v1/keys', 'get')).toEqual([{ managementKey: [] }]);
    expect(security('/v1/chat/completions', 'post')).toEqual([{ managementKey: [] }, { standardKey: [] }, { internKey: [] }]);
    expect(security('/health', 'get')).toEqual([]);
    expect(security('/v1/openapi.json', 'get')).toEqual([]);
    // The admin API takes an operator key only, and says a workspace key is a 403.
    expect(security('/v1/admin/catalog', 'get')).toEqual([{ operatorKey: [] }]);
    expect(document.paths['/v1/admin/catalog']!.put!.responses['403']).toBeDefined();
    expect(Object.keys(document.components!.securitySchemes!)).toEqual([
      'managementKey',
      'standardKey',
      'operatorKey',
      'internKey',
      'anthropicApiKey',
    ]);
    expect(document.paths['/v1/interns/{internId}/daemon-access/sign']!.post!.deprecated).toBe(true);
    expect(document.paths['/v1/interns/{internId}/daemon/sign']!.post!.responses['408']).toBeDefined();
  });

  it('leaves optional what is optional, types whole numbers integer, describes the metadata opt-in and the deprecations', () => {
    const schemas = document.components!.schemas as Record<string, { required?: string[]; properties: Record<string, any> }>;
    expect(schemas.ResponsesRequestDto!.required ?? []).not.toContain('previous_response_id');
    expect(schemas.ResponsesRequestDto!.properties.previous_response_id).toMatchObject({ type: 'null' });
    for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/messages']) {
      const headers = Object.fromEntries(
        (document.paths[path]!.post!.parameters as Array<{ name: string; in: string; required?: boolean; deprecated?: boolean }>)
          .filter((parameter) => parameter.in === 'header')
          .map((parameter) => [parameter.name, parameter]),
      );
      expect(headers['x-session-id']).toMatchObject({ required: false });
      expect(headers['x-service-metadata']).toMatchObject({ required: false });
      expect(headers['x-openrouter-metadata']).toMatchObject({ required: false });
      expect(headers['x-service-experimental-metadata']).toMatchObject({ required: false, deprecated: true });
    }
    expect(schemas.Integer).toMatchObject({ type: 'integer' });
    expect(schemas.ChatUsageView!.properties.prompt_tokens).toEqual({ $ref: '#/components/schemas/Integer' });
    expect(schemas.ResponsesUsageView!.properties.input_tokens).toEqual({ $ref: '#/components/schemas/Integer' });
    expect((schemas.ChatCompletionAnswer ?? schemas.ChatCompletionView)!.properties.created).toEqual({
      $ref: '#/components/schemas/Integer',
    });
    expect(schemas.ChatCompletionRequestDto!.properties.route).toMatchObject({ deprecated: true });
    expect(schemas.ChatCompletionRequestDto!.properties.max_tokens).toMatchObject({ deprecated: true });
    expect(schemas.ResponsesRequestDto!.properties.route).toMatchObject({ deprecated: true });
  });

  it('describes every custom validation constraint of the DTOs', () => {
    const used = Object.keys(document.components?.schemas ?? {});
    expect([...undescribedConstraints].filter(([owner]) => used.includes(owner))).toEqual([]);
  });

  it('is committed as generated (npm run openapi rewrites docs/openapi.json and the answer schemas)', () => {
    const answers = asJson(generateAnswerSchemas(ROOT));
    // What the generator cannot follow (e.g. Omit<> of a recursive type) comes out as a closed empty object.
    expect(answers).not.toContain('"additionalProperties": false');
    if (WRITE) {
      writeFileSync(join(ROOT, ANSWER_SCHEMAS_FILE), answers);
      // Built again with the schemas just generated (the imported file is the one from before).
      writeFileSync(join(ROOT, DOCUMENT_FILE), asJson(buildOpenApiDocument(app, JSON.parse(answers))));
      return;
    }
    expect(readFileSync(join(ROOT, ANSWER_SCHEMAS_FILE), 'utf8'), `${ANSWER_SCHEMAS_FILE} is stale: run npm run openapi`).toBe(answers);
    expect(readFileSync(join(ROOT, DOCUMENT_FILE), 'utf8'), `${DOCUMENT_FILE} is stale: run npm run openapi`).toBe(asJson(document));
  }, 60_000);
});
