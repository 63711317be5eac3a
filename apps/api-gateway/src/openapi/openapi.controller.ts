import { Controller, Get, Header } from '@nestjs/common';
import { ApiResponse, type OpenAPIObject } from '@nestjs/swagger';
import { Doc } from './api-docs.js';
import { Public } from '../auth/public.decorator.js';

/** Holds the document `createGateway` builds once the routes are known (it describes the app it is part of). */
export class OpenApiDocumentHolder {
  document?: OpenAPIObject;
}

/** GET /v1/openapi.json: the OpenAPI 3.1 description of this API (ADR 0052), no key needed. */
@Controller('v1')
export class OpenApiController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  @Public()
  @Doc('This document')
  @ApiResponse({ status: 200, description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } } })
  @Get('openapi.json')
  @Header('cache-control', 'public, max-age=300')
  document(): OpenAPIObject {
    if (!this.holder.document) throw new Error('The OpenAPI document is built when the gateway starts');
    return this.holder.document;
  }
}
