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
  app = await NestFactory.create(AppModule.forRoot(new GatewayEnv()), new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  document = buildOpenApiDocument(app);
});
afterAll(() => app?.close());

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, version 1.0.0', async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
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
