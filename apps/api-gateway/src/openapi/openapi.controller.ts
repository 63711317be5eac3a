import { Controller, Get, Header } from '@nestjs/common';
import { ApiResponse, type OpenAPIObject } from '@nestjs/swagger';
import { Doc } from './api-docs.js';
import { Public } from '../auth/public.decorator.js';

/**
 * The document of the app it is part of: `createGateway` hands over how to build it once the
 * routes are known, and it is built on its first request (not on every start: 30-70 ms and its
 * memory, for a document most replicas are never asked for), then kept.
 */
export class OpenApiDocumentHolder {
  private build?: () => OpenAPIObject;
  private built?: OpenAPIObject;

  describe(build: () => OpenAPIObject): void {
    this.build = build;
  }

  get document(): OpenAPIObject {
    if (!this.build) throw new Error('The OpenAPI document is described when the gateway starts');
    return (this.built ??= this.build());
  }
}

/** GET /v1/openapi.json: the OpenAPI 3.1 description of this API, no key needed. */
@Controller('v1')
export class OpenApiController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  @Public()
  @Doc('This document')
  @ApiResponse({
    status: 200,
    description: 'The OpenAPI 3.1 document',
    content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
  })
  @Get('openapi.json')
  @Header('cache-control', 'public, max-age=300')
  document(): OpenAPIObject {
    return this.holder.document;
  }
}
